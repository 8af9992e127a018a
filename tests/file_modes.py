"""File modes, and what another local user can read: the home is owner-only
(docs/architecture.md#the-home-is-owner-only), checked by reading its files as ``nobody``."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest


def mode(path: Path) -> int:
    """The permission bits of ``path`` itself (a link's own)."""
    return stat.S_IMODE(path.lstat().st_mode)


def nobody_reads(path: Path) -> bool:
    """Whether another local user (``nobody``) can read ``path``; the test is skipped unless root."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("reading as another local user needs root and runuser")
    command = ["runuser", "-u", "nobody", "--", "cat", str(path)]
    return subprocess.run(command, capture_output=True, timeout=30, check=False).returncode == 0

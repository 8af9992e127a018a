"""The app's home (``AGENT_ORCHESTRATOR_HOME``, ``./.data``) is its owner's only
(docs/architecture.md#the-home-is-owner-only).

It holds the catalog (password hashes, login tokens' hashes, the audit log), the conversations, the
retail data and its versions, uploads and the demo password: nothing another local user should
read. So every process of ours that writes there runs with the umask ``0o077`` (files ``0600``,
folders ``0700``, whatever the umask it was started with; the Copilot CLI and every other child
inherit it), and a start walks the home once to tighten what an earlier version, or a process
under another umask, left readable: each folder ``0700``, each file without its group's and
others' bits (an owner's execute bit stays: the runtime keeps executables under its home).
Symbolic links are neither followed nor changed.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

OWNER_ONLY_UMASK = 0o077
FOLDER_MODE = 0o700
FILE_MODE = 0o600

log = logging.getLogger(__name__)


def owner_only_umask() -> int:
    """Set this process's umask to :data:`OWNER_ONLY_UMASK`; the one it had (to restore it)."""
    return os.umask(OWNER_ONLY_UMASK)


def prepare_home(home: Path) -> int:
    """Make ``home`` (created if missing) and everything under it owner-only, with the process's umask
    set so that what is written next is too; the previous umask."""
    previous = owner_only_umask()
    secure_tree(home)
    return previous


def secure_tree(home: Path) -> int:
    """Create ``home`` as a ``0700`` folder if missing and take the group's and others' bits off it and
    everything under it; how many entries were changed. One ``lstat`` per entry, a ``chmod`` only
    where a bit is to go: cheap enough for every start."""
    home.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    changed = _tighten(home, is_folder=True)
    for root, folders, files in os.walk(home):  # does not descend into linked folders
        for name in folders:
            changed += _tighten(Path(root, name), is_folder=True)
        for name in files:
            changed += _tighten(Path(root, name), is_folder=False)
    return changed


def owner_only_file(path: Path) -> None:
    """Create ``path`` as an empty ``0600`` file if it does not exist, or take an existing file's
    group's and others' bits off: for a file another library then opens (a SQLite database)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        _tighten(path, is_folder=False)
    except PermissionError:  # a folder not ours to write: whoever opens the file next says so
        log.warning("cannot create %s owner-only: the folder is not writable", path)


def _tighten(path: Path, *, is_folder: bool) -> int:
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
            return 0
        mode = stat.S_IMODE(info.st_mode)
        wanted = FOLDER_MODE if is_folder else mode & 0o700
        if mode == wanted:
            return 0
        path.chmod(wanted)
        return 1
    except FileNotFoundError:  # gone meanwhile (a temporary file)
        return 0
    except PermissionError:  # not ours (another user's file in a shared folder): say so, go on
        log.warning("cannot make %s owner-only: not this user's", path)
        return 0

"""Locate the Copilot CLI binary that the SDK drives.

The SDK can download its own runtime, but that download reaches GitHub releases, which these machines
cannot; the runtime comes from npm instead (``package.json`` pins ``@github/copilot``), whose platform
package ships the native binary. ``COPILOT_CLI_PATH`` (``RuntimeSettings.copilot_cli_path``) overrides
the search.
"""

import os
import platform
from pathlib import Path

from agent_orchestrator.errors import RuntimeMissingError

INSTALL_HINT = "npm ci"


def _platform_package() -> str:
    """npm's platform package name, e.g. ``copilot-linux-x64``."""
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "linux")
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"copilot-{system}-{arch}"


def project_roots(start: Path) -> list[Path]:
    """The project root candidates: the working directory, this package's checkout, and their parents
    (where ``node_modules`` is looked for: the CLI here, the browser's chart library in ``web``)."""
    here = Path(__file__).resolve()
    roots = [start.resolve(), *start.resolve().parents, *here.parents]
    return list(dict.fromkeys(roots))


def find_copilot_cli(override: Path | None = None, start: Path | None = None) -> Path:
    """Return ``override`` if given, else the npm-installed executable; or raise
    :class:`RuntimeMissingError` naming the fix."""
    if override is not None:
        if override.is_file() and os.access(override, os.X_OK):
            return override
        raise RuntimeMissingError(f"COPILOT_CLI_PATH={override} is not an executable file.")
    binary = "copilot.exe" if platform.system() == "Windows" else "copilot"
    for root in project_roots(start or Path.cwd()):
        candidate = root / "node_modules" / "@github" / _platform_package() / binary
        if candidate.is_file():
            return candidate
    raise RuntimeMissingError(
        f"The Copilot runtime (npm @github/copilot) is not installed. Run `{INSTALL_HINT}` in the project "
        "directory, or set COPILOT_CLI_PATH."
    )

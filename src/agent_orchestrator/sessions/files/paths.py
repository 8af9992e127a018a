"""The virtual layout the runtime sees through the ``session_fs`` hook, its paths, and the errors it
understands: shared by the two stores behind the hook (sealed local files, PostgreSQL), without any
database or disk.

The runtime sends absolute POSIX paths, and not only under the virtual ``/session-state`` root: on
create it also writes ``workspace.yaml`` and ``checkpoints/index.md`` under the *host* path of its own
``COPILOT_HOME`` (``/srv/a/copilot/session-state/<id>/...``), through the provider, never to disk. So
any absolute path is accepted and stored as given (normalised), keyed by session id.

Errors are ``OSError`` subclasses with a real ``errno`` (the database's failures too, as
:class:`~agent_orchestrator.errors.SessionFileStoreError`): the SDK's adapter turns
``FileNotFoundError`` / ``errno.ENOENT`` into the runtime's ``ENOENT`` code (which the runtime treats as
"not there yet", e.g. ``settings.json`` on every create) and everything else into ``UNKNOWN`` carrying
``str(error)``.
"""

import errno
import os
import posixpath

ROOT = "/"
# The layout announced to the runtime (``client_config``): its session state and its working directory.
SESSION_STATE_PATH = "/session-state"
WORKING_DIRECTORY = "/workspace"
MAX_PATH_BYTES = 4096
MAX_SESSION_ID_CHARS = 256


def fs_error(code: int, path: str, detail: str | None = None) -> OSError:
    """An ``OSError`` of the right subclass (``FileNotFoundError`` for ENOENT, ...) for ``path``."""
    message = os.strerror(code) if detail is None else f"{os.strerror(code)} ({detail})"
    return OSError(code, message, path)  # OSError(errno, ...) picks the matching subclass


def normalize(path: str, *, max_bytes: int = MAX_PATH_BYTES) -> str:
    """``path`` as stored: absolute, no ``.``/``..``/``//`` segments, no trailing slash."""
    if not isinstance(path, str) or not path:
        raise fs_error(errno.EINVAL, str(path), "empty path")
    if "\x00" in path:
        raise fs_error(errno.EINVAL, path.replace("\x00", "\\0"), "path contains a NUL character")
    size = len(path.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise fs_error(errno.ENAMETOOLONG, path[:80] + "...", f"{size} bytes, limit {max_bytes}")
    if not path.startswith("/"):
        raise fs_error(errno.EINVAL, path, "session file paths must be absolute")
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/")  # normpath keeps a leading "//"


def parent_of(path: str) -> str:
    """The directory holding ``path`` (``/`` for top-level entries and for ``/`` itself)."""
    return posixpath.dirname(path)


def ancestors(path: str) -> list[str]:
    """Every directory above ``path`` except ``/``, outermost first."""
    found: list[str] = []
    current = parent_of(path)
    while current != ROOT:
        found.append(current)
        current = parent_of(current)
    return found[::-1]


def descendant_range(path: str) -> tuple[str, str]:
    """Bounds ``(low, high)`` such that ``low < p < high`` (byte order) holds exactly for paths below
    ``path``: everything starting with ``path + "/"``, as ``"0"`` is the byte after ``"/"``."""
    prefix = path.rstrip("/") + "/"
    return prefix, prefix[:-1] + "0"


def is_below(path: str, directory: str) -> bool:
    """Whether ``path`` lies strictly inside ``directory``."""
    return (directory == ROOT and path != ROOT) or path.startswith(directory.rstrip("/") + "/")


def check_session_id(session_id: str) -> str:
    """``session_id`` if a store can key files by it (the runtime's ids; no NUL, not too long)."""
    if not isinstance(session_id, str) or not session_id or len(session_id) > MAX_SESSION_ID_CHARS:
        raise ValueError(f"A session id must be 1-{MAX_SESSION_ID_CHARS} characters, got {session_id!r:.80}")
    if "\x00" in session_id:
        raise ValueError("A session id must not contain NUL characters")
    return session_id

"""The session id policy: what a caller may use as a session id, and how we generate ids.

An id is an identifier, never a key (docs/architecture.md#session-ids): it shows up in URLs, logs,
file names and audit records, so it must never carry a secret, an e-mail address or a token. Ids are
checked here, before they reach the runtime, and a rejected id that looks like a secret is never echoed
back.

Generated ids keep the lab's shape (``sdklabs-`` + 16 hex digits) but start with the creation time in
milliseconds, so they sort by time and "the most recent session" is simply the greatest id.

The web app's sessions have two ids (docs/architecture.md#session-ids): the one their owner sees and
chooses (checked here, unique per owner) and the runtime's, which keys the runtime's files, leases,
feeds and everything else below the catalog and is unique across all owners
(:func:`new_runtime_id`). The lab's sessions have only the first kind: it is the runtime's id too.
"""

import math
import re
import secrets
import time
import uuid
from collections import Counter

from agent_orchestrator.errors import InvalidInputError

MIN_LENGTH = 3
MAX_LENGTH = 64
_ALLOWED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")
# Well-known credential shapes: GitHub tokens, OpenAI/Anthropic keys, Slack tokens, AWS key ids, JWTs.
# Anchored at a word start, so "task-42" or "desk_7" stay valid.
_TOKEN_PREFIXES = re.compile(
    r"(?<![A-Za-z0-9])(gh[pousr]_|github_pat_|sk-|sk_|xox[abprs]-|AKIA[0-9A-Z]{12}|eyJ[A-Za-z0-9_-]{8,})"
)
# A long unbroken alphanumeric run with high entropy is what random keys look like; our own generated
# ids have 16 hex digits after the prefix, well under this length.
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_]{24,}")
_ENTROPY_BITS_PER_CHAR = 3.5


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _looks_secret(value: str) -> bool:
    if _TOKEN_PREFIXES.search(value):
        return True
    return any(_entropy(run) >= _ENTROPY_BITS_PER_CHAR for run in _LONG_RUN.findall(value))


def validate_session_id(value: str) -> str:
    """Return ``value`` if it is an acceptable session id, else raise :class:`InvalidInputError`."""
    if _EMAIL.search(value):
        raise InvalidInputError("Session ids must not contain e-mail addresses; use an opaque id.")
    if _looks_secret(value):
        raise InvalidInputError("Session ids must not contain secrets or tokens; use an opaque id.")
    if not MIN_LENGTH <= len(value) <= MAX_LENGTH:
        raise InvalidInputError(f"Session ids have {MIN_LENGTH} to {MAX_LENGTH} characters.")
    if not _ALLOWED.match(value):
        raise InvalidInputError(
            "Session ids use letters, digits, '.', '_' and '-' and start with a letter or digit."
        )
    return value


def new_session_id(prefix: str = "sdklabs") -> str:
    """A fresh, time-sortable id such as ``sdklabs-19ad2c3f8e1a4b2c``."""
    millis = time.time_ns() // 1_000_000
    return f"{prefix}-{millis:011x}{secrets.randbelow(16**5):05x}"


def new_runtime_id() -> str:
    """A fresh runtime id for a web session: a random UUID, as the runtime makes its own.

    Every new session gets one, whether or not its public id is taken by anyone else, so that nothing a
    user can observe (the runtime's ``session.start`` in an export, how long a create takes, what the
    runtime keeps under the id) depends on another owner's ids; 122 random bits never collide, so no
    create waits on or races with another owner's. It passes :func:`validate_session_id` (its hex runs
    are short), so the runtime's files and folders named after it follow the same rules as any id.
    """
    return str(uuid.uuid4())

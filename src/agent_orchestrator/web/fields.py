"""Field types the request models and parameters share.

``NulFree`` is text without U+0000. PostgreSQL cannot store that character in text (SQLite can), and
nothing a user types needs it: refusing it where text comes in gives one ``422`` on every store,
instead of a database error after some of a request's writes.
"""

from typing import Annotated

from pydantic import AfterValidator


def _nul_free(text: str) -> str:
    if "\x00" in text:
        raise ValueError("text must not contain NUL characters (U+0000)")
    return text


NulFree = Annotated[str, AfterValidator(_nul_free)]

"""Words as the sealed search sees them (docs/architecture.md#branching-and-search).

With encryption at rest the database engines never see the text, so we split and stem it here, the
same way when indexing and when querying: words are runs of letters and digits, case-folded with
diacritics removed ("Café" is "cafe"), stemmed by the Snowball English stemmer ("cherries" and "cherry"
are both "cherri"), as close as we can get to what FTS5's porter tokenizer and PostgreSQL's English
configuration do for the clear index.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator

import snowballstemmer

_WORD = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")
SHORTEST_PREFIX = 2


def fold(word: str) -> str:
    """``word`` case-folded, without diacritics."""
    if word.isascii():
        return word.casefold()
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def spans(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, folded word)`` of each word of ``text``, where it stands in ``text``."""
    for match in _WORD.finditer(text):
        yield match.start(), match.end(), fold(match.group())


def words(text: str) -> list[str]:
    """The folded words of ``text``, in order."""
    return [word for _, _, word in spans(text)]


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The stem of a folded word (the stemmer is pure Python: common words come from the cache)."""
    return str(_STEMMER.stemWord(word))


def stems(text: str) -> set[str]:
    return {stem(word) for word in words(text)}


def prefixes(text: str) -> set[str]:
    """Every prefix of at least two characters of every word of ``text`` (the word itself included),
    what search-as-you-type on sealed titles matches."""
    return {word[:end] for word in words(text) for end in range(SHORTEST_PREFIX, len(word) + 1)}

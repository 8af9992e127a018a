"""Whether a word is English: read by the model's suggestions (a header's run of words) and by the
vocabulary (a word of English is no typo of a value), beneath both."""

from __future__ import annotations

import functools

from spellchecker import SpellChecker


@functools.cache
def _english() -> SpellChecker:
    return SpellChecker()  # an English word list with frequencies (pyspellchecker), loaded once


def is_english(word: str) -> bool:
    """A word of English ("leave", "lost"): a part of a header's run of words, and, to the planner,
    a word the reader does not know, never a typo of one it does ("leave" is no "level")."""
    return word in _english()

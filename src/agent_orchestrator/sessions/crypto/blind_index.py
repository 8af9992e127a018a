"""The blind search index: keyed hashes of words instead of words (docs/architecture.md#encryption-at-rest).

With a master key, the search index must not hold the words of a conversation, yet the database
engines should still do the inverted-index work (FTS5, GIN) so that search stays fast. So each word
(a message's stemmed words, a title's word prefixes) is stored as a *blind term*: HMAC-SHA256 under the
deployment's index key of ``(scope, owner, word)``, cut to 64 bits and written with the letters a-p
(one plain token to every tokenizer: no digits for PostgreSQL's parser to read as a number). A query
is the same transform of its words.

* The index key is random, made once and kept wrapped by the master key in the key store, like a
  session's data key (``SessionKeys.index_key``): ``rotate-keys`` re-wraps it and the index survives.
* The owner is part of every term, so equal words of two users are different terms: someone holding
  the database sees, per user, which messages share a (stemmed) word and how often, never across
  users, and no word itself; testing whether a word is there takes the index key.
* 64 bits: a user with millions of indexed words meets a false match about once in 10^12 queries.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

TERM_BYTES = 8
_LETTERS = str.maketrans("0123456789abcdef", "abcdefghijklmnop")
MESSAGE_SCOPE = "message"
TITLE_SCOPE = "title"


class BlindIndex:
    """Blind terms under one index key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def term(self, scope: str, owner_id: int, word: str) -> str:
        message = f"{scope}\x00{owner_id}\x00{word}".encode()
        return hmac.digest(self._key, message, "sha256")[:TERM_BYTES].hex().translate(_LETTERS)

    def terms(self, scope: str, owner_id: int, words: Iterable[str]) -> list[str]:
        """The terms of ``words``, each once, sorted (the order of the words is not kept)."""
        return sorted({self.term(scope, owner_id, word) for word in words})

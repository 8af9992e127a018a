"""Country names as people (and small models) type them, matched to the names the data uses.

The Online Retail data says "United Kingdom", "USA", "EIRE" and "RSA"; the generator says
"United States" and "Ireland". An analyst types "UK", "US" or "Ireland" whichever file is loaded, so
a name is matched case- and punctuation-insensitively first, then through alias groups that map to
whichever member of the group the dataset actually contains.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Each group lists spellings of one country, normalised by ``_key``; order does not matter.
ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    ("unitedkingdom", "uk", "gb", "greatbritain", "britain", "england"),
    ("unitedstates", "usa", "us", "unitedstatesofamerica", "america"),
    ("ireland", "eire", "republicofireland"),
    ("southafrica", "rsa"),
    ("czechrepublic", "czechia"),
    ("netherlands", "thenetherlands", "holland"),
    ("unitedarabemirates", "uae"),
)


def _key(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def match_country(text: str, known: Iterable[str]) -> str | None:
    """The dataset's spelling of ``text`` among ``known`` names, or ``None`` if none matches."""
    by_key = {_key(name): name for name in known}
    wanted = _key(text)
    if not wanted:
        return None
    if wanted in by_key:
        return by_key[wanted]
    group = next((g for g in ALIAS_GROUPS if wanted in g), ())
    return next((by_key[k] for k in group if k in by_key), None)

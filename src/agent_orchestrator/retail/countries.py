"""Country names as people (and small models) type them, matched to the names the data uses.

The Online Retail data says "United Kingdom", "USA", "EIRE" and "RSA"; the generator says
"United States" and "Ireland". An analyst types "UK", "US" or "Ireland" whichever file is loaded, so
a name is matched case- and punctuation-insensitively first, then through alias groups that map to
whichever member of the group the dataset actually contains.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Each group lists spellings of one country as people write them; matching ignores case, spaces and
# punctuation (``_key``), and order does not matter.
ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    ("United Kingdom", "UK", "U.K.", "GB", "Great Britain", "Britain", "England", "British"),
    ("United States", "USA", "US", "U.S.", "United States of America", "America", "The States", "American"),
    ("Ireland", "EIRE", "Republic of Ireland", "Irish"),
    ("South Africa", "RSA"),
    ("Czech Republic", "Czechia"),
    ("Netherlands", "The Netherlands", "Holland"),
    ("United Arab Emirates", "UAE"),
    # what people call a country's customers ("leaving out the British ones"); not the words that
    # name products too (French, Danish, Swiss, Dutch, Polish…)
    ("Germany", "German"),
    ("Sweden", "Swedish"),
    ("Norway", "Norwegian"),
    ("Finland", "Finnish"),
    ("Belgium", "Belgian"),
    ("Austria", "Austrian"),
    ("Australia", "Australian"),
    ("Canada", "Canadian"),
    ("Japan", "Japanese"),
)


def key(name: str) -> str:
    """A name reduced to its letters, lower case: "U.K." and "uk" are one spelling."""
    return re.sub(r"[^a-z]", "", name.lower())


def match_country(text: str, known: Iterable[str]) -> str | None:
    """The dataset's spelling of ``text`` among ``known`` names, or ``None`` if none matches."""
    by_key = {key(name): name for name in known}
    wanted = key(text)
    if not wanted:
        return None
    if wanted in by_key:
        return by_key[wanted]
    group = next((keys for g in ALIAS_GROUPS if wanted in (keys := [key(a) for a in g])), [])
    return next((by_key[k] for k in group if k in by_key), None)

"""The dataset's own words, found in a question: its values, its columns and its metrics.

What a question names is linked here, in code, from the data -- a region, a state, a category, a
customer's key or name, a product's name -- and from the model -- a column ("by region", "which
state"), a metric or one of its synonyms ("sales", "aov"). The model that fills the query is then
offered only those (``query_schema(..., found=...)``): the probe of the bare design showed a small
model filling filters with values nobody asked about, and picking keys for words it did not know
(``bench/probe_semantic_fill.py``). Nothing here knows a wording: the vocabulary is the data's and
the model's, so a new column or value is found without code.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent_orchestrator.semantic.english import is_english
from agent_orchestrator.semantic.model import Kind, Role, SemanticModel, singular
from agent_orchestrator.semantic.query import GRAIN_WORDS

MAX_WORDS = 8
"""The longest value matched, in words (a product's full name)."""
FUZZY_CUTOFF = 0.88
"""How close a misspelt word must be to a value to stand for it ("califronia")."""
_MIN_FUZZY = 5
_MIN_PREFIX = 4
"""The fewest letters of a name said short ("tech"): fewer begin too many words."""
_MIN_COMPACT = 5
"""The fewest letters of a value found by its letters alone (:attr:`Vocabulary._compact`)."""
_JOINING = frozenset({"the", "a", "an", "of", "in", "on", "and", "or", "to", "for", "by", "at", "vs"})
"""Words never part of a value spaced another way ("in dia" is no India)."""
_TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")


@dataclass(frozen=True, slots=True)
class Mention:
    """A value of ``column`` that the question names (``exact`` unless found despite a misspelling)."""

    column: str
    value: str
    words: str
    exact: bool = True
    part: bool = False
    """An item of a column of lists ("Mushrooms" of "Chicken, Mushrooms, Garlic"): its values hold it."""


@dataclass(frozen=True, slots=True)
class Found:
    """What a question names of the dataset."""

    mentions: tuple[Mention, ...]
    columns: tuple[str, ...]
    metrics: tuple[str, ...]
    grains: tuple[str, ...] = ()
    """Periods to group by that the question named ("per month", "yearly")."""
    used: tuple[str, ...] = ()
    """The question's words (normalised) that named something: what the reading covers."""

    def values(self) -> dict[str, list[str]]:
        """The mentioned values, by column (the filter enums of a restricted schema)."""
        by_column: dict[str, list[str]] = {}
        for mention in self.mentions:
            by_column.setdefault(mention.column, [])
            if mention.value not in by_column[mention.column]:
                by_column[mention.column].append(mention.value)
        return by_column


_IRREGULAR = {
    "paid": "pay", "sold": "sell", "bought": "buy", "spent": "spend", "made": "make", "gave": "give",
    "given": "give", "women": "woman", "men": "man", "people": "person", "children": "child",
    "won": "win", "lost": "lose", "losing": "lose", "closed": "close", "closing": "close",
}  # fmt: skip
"""English forms no ending explains ("paid" is a form of "pay", as "payment" is)."""
_ENDINGS = re.compile(r"(?<=\w{3})(?:ments?|ships?|ings?|ed|es|s)$")


def root(word: str) -> str:
    """A word's root, the same for its forms and the words made from it: "paid", "paying" and
    "payment" are "pay"; "membership" and "members" are "member"; "shipped" is "ship"."""
    word = _IRREGULAR.get(word, word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    word = _ENDINGS.sub("", word)
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou" else word


def _rooted(phrase: str) -> str:
    return " ".join(root(w) for w in phrase.split())


_GENERIC = frozenset(
    (
        "id",
        "no",
        "number",
        "num",
        "code",
        "key",
        "ref",
        "total",
        "amount",
        "count",
        "value",
        "date",
        "time",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "hour",
        "hours",
        "name",
        "type",
        "kind",
        "earned",
        "sold",
        "bought",
        "ordered",
        "purchased",
        "of",
        "the",
        "per",
        "a",
        "an",
        "and",
        "or",
        "in",
        "on",
        "at",
        "by",
        "for",
        "to",
        "from",
        "with",
        "into",
        "than",
        "up",
        "out",
        "over",
        "under",
        "between",
        "is",
        "are",
        "was",
        "were",
        "it",
        "its",
        "our",
        "my",
        "your",
        "their",
        "this",
        "that",
        "these",
        "those",
        "first",
        "last",
        "customer",
        "customers",
        "product",
        "products",
        "order",
        "orders",
        "average",
        "avg",
        "sum",
        "highest",
        "lowest",
        "max",
        "min",
    )
)
"""Words of a name that say what sort of figure or field it is, not what it is about, and the
entities, which their keys name: a part of a name without any other word names nothing ("total" is
no *Total price*, "customers" no *Customer type*)."""


_LINKING = frozenset(
    ("per", "of", "by", "each", "to", "and", "or", "the", "a", "an", "for", "in", "on", "with")
)
"""Words that join a name's parts: a run ending or starting with one is no part of it ("revenue per"
is not *Revenue per customer*: "revenue per territory" is revenue by territory)."""


def _partial_names(model: SemanticModel) -> dict[str, tuple[str, str]]:
    """A metric or a column by a run of the words of its name that no other name has ("barista" for
    *Barista ID*, "loyalty points" for *Loyalty points earned*): people say the part that matters."""
    owners: dict[str, set[tuple[str, str]]] = {}
    named = [  # not a line's extreme nor its middle: "units" is the units sold, not the most on one line
        ("metric", m.name, (m.name.replace("_", " "), m.title))
        for m in model.metrics
        if not (
            m.kind in (Kind.minimum, Kind.maximum, Kind.median)
            and model.column(str(m.over)).role is Role.measure
        )
    ]
    named += [  # not a key's: its entity names it ("in stock" asks about inventory, not the StockCode)
        ("column", c.name, (c.name.replace("_", " "), c.title))
        for c in model.columns
        if c.role not in (Role.ignore, Role.key)
    ]
    joined = {  # "bikeshop" read as "bike shop": a shop, never a bike ("LoyaltyPoints" is written apart)
        c.name
        for c in model.columns
        if c.source.isalpha()
        and c.source[1:] in (c.source[1:].lower(), c.source[1:].upper())
        and normalise(c.title).replace(" ", "") == c.source.lower()
    }
    # a part a column's own value says is that value: "holiday" of *Holiday flag* is its *Holiday*
    valued = {normalise(v) for c in model.columns for v in c.spellings.values()}
    for kind, name, spoken in named:
        for phrase in spoken:
            words = normalise(phrase).split()
            for size in range(1, len(words)):
                for start in range(len(words) - size + 1) if name not in joined else [len(words) - size]:
                    part = words[start : start + size]
                    if " ".join(part) in valued:
                        continue
                    if any(w not in _GENERIC for w in part) and not {part[0], part[-1]} & _LINKING:
                        owners.setdefault(" ".join(part), set()).add((kind, name))
    for column in model.with_role(
        Role.dimension
    ):  # the head noun of an other name: "state" of "ship-to state"
        for said in column.synonyms:
            words = normalise(said).split()
            if len(words) > 1 and words[-1] not in _GENERIC:
                owners.setdefault(words[-1], set()).add(("column", column.name))
    over = {m.name: m.over for m in model.metrics}
    found = {}
    for phrase, held in owners.items():
        # a metric and the column it sums are one thing: the metric ("points" is the points earned)
        metrics = {name for kind, name in held if kind == "metric"}
        if len(metrics) == 1 and all(
            kind == "metric" or over[next(iter(metrics))] == name for kind, name in held
        ):
            found[phrase] = ("metric", next(iter(metrics)))
        elif len(held) == 1:
            found[phrase] = next(iter(held))
        elif (called := _name_column(phrase, held, model)) is not None:
            found[phrase] = ("column", called)
    return found


_NAME_WORDS = ("name", "title")


def _name_column(phrase: str, held: set[tuple[str, str]], model: SemanticModel) -> str | None:
    """The one of several columns that a thing's word names when it is the thing's name: "dealer"
    is the *Dealer Name* beside *Dealer No* and *Dealer Region* ("which dealer sold most?"), as
    people name a thing by what it is called, not by its number or its place."""
    titles = {c.name: normalise(c.title) for c in model.columns}
    names = [
        name
        for kind, name in held
        if kind == "column" and titles.get(name) in {f"{phrase} {word}" for word in _NAME_WORDS}
    ]
    return names[0] if len(names) == 1 else None


def normalise(text: str) -> str:
    """Lower-case words; a hyphen joins a code's parts (``cg-12520``) and separates words
    (``sub-category`` is ``sub category``); a possessive's "'s" goes, as a question's reader drops it
    ("Kohl's" is asked as "kohl's" and as "kohls", "Men's Footwear" as "mens footwear")."""
    words: list[str] = []
    for token in _TOKEN.findall(_POSSESSIVE.sub("", text.lower())):
        words.extend([token] if any(c.isdigit() for c in token) else token.replace("-", " ").split())
    return " ".join(words)


_PLAIN_PAIRS = frozenset(
    {"us", "we", "it", "at", "in", "on", "an", "as", "or", "to", "by", "of", "is", "be", "do", "no"}
    | {"so", "up", "my", "me", "he", "if", "go", "am"}
)
"""Initials that are words of their own ("us" is no United States)."""
_PLAIN_WORDS = _PLAIN_PAIRS | {"a", "i", "o"} | {
    "top", "bottom", "best", "worst", "total", "all", "first", "last", "most", "least", "more", "less",
    "per", "for", "from", "with", "and", "the", "than", "over", "under", "each", "every", "any", "not",
    "this", "that", "what", "which", "how", "when", "where", "who", "out", "off", "one", "two", "new"
}  # fmt: skip
"""Values that are also words ("A" of a branch, a category "Top" beside "top 5 states", a country
"Perú" whose accent a broken export lost, "Per"): read as the value only beside its column's name
("the Top category")."""


_SMALL_WORDS = {
    "ok", "okay", "hi", "in", "me", "or", "oh", "id", "am", "as", "at", "be", "by", "do", "go", "he", "if",
    "is", "it", "my", "no", "of", "on", "so", "to", "up", "us", "we", "was", "are", "and", "can", "did",
    "had", "has", "her", "him", "his", "how", "its", "may", "not", "one", "our", "out", "see", "she",
    "the", "too", "two", "who", "why", "you", "yes",
}  # fmt: skip
"""Words of a question too common to be a code a file writes in capitals ("OK", "IN", "ME")."""
_CODE_LETTERS = 3


def _coded(hits: list[tuple[str, str]], phrase: str) -> bool:
    """Whether ``phrase`` names only codes of a few capitals ("WA", "PL") as their plural ("was",
    "pls": a word's, never a code's) or as one of :data:`_SMALL_WORDS`."""
    codes = all(v.isalpha() and v.isupper() and len(v) <= _CODE_LETTERS for _, v in hits)
    plural = any(phrase != normalise(v) and singular(phrase) == normalise(v) for _, v in hits)
    return codes and (phrase in _SMALL_WORDS or plural)  # a size said in words ("large": L) is no code


def plurals(word: str) -> tuple[str, ...]:
    """The ways a word's plural may be written, the likeliest first ("category": categories, "bike":
    bikes, "box": boxes)."""
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return (f"{word[:-1]}ies", f"{word}s")
    return (f"{word}es", f"{word}s") if word.endswith(("s", "x", "ch", "sh")) else (f"{word}s", f"{word}es")


def _initials(values: Mapping[str, Iterable[str]], dimensions: set[str]) -> dict[str, list[tuple[str, str]]]:
    """A dimension's values of several words by their initials ("uk": United Kingdom, "ec": European
    Community, "us": United States), when no other value has the same ones: read only as a question
    writes them, in capitals ("outside the US"), as "us" is a word."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in dimensions & set(values):
        for value in values[name]:
            words = normalise(str(value)).split()
            if len(words) >= 2 and all(w.isalpha() for w in words):
                found.setdefault("".join(w[0] for w in words), []).append((name, str(value)))
    return {k: v for k, v in found.items() if len(v) == 1}


_COUNTRY_CAPITALS = {
    "us": ("usa", "united states", "united states of america", "us"),
    "usa": ("united states", "united states of america", "us"),
    "uk": ("united kingdom", "great britain", "gb", "uk"),
    "uae": ("united arab emirates",),
}
"""Countries said by capitals a file may spell out or write otherwise ("the US" of a "USA")."""
_VALUE_WORDS = {
    "female": ("women", "woman", "ladies", "females", "female customers"),
    "f": ("women", "woman", "ladies", "female", "females"),
    "male": ("men", "man", "gentlemen", "males", "male customers"),
    "m": ("men", "man", "gentlemen", "male", "males"),
    "member": ("members", "membership", "loyalty members", "card holders"),
    "normal": ("non-members", "non members"),  # "regular customers" may be the loyal ones: never guessed
    "usa": ("united states", "america", "the states"),
    "united states": ("usa", "america", "the states"),
    "uk": ("united kingdom", "britain", "great britain"),
    "united kingdom": ("britain", "great britain"),
}
"""The words people say for a value files write otherwise (a gender column's "Female" or "F" are
the women): English, not any file's; a value of the file's own with those words wins."""


_LISTED_SHARE = 0.5
"""A column is of lists when at least this share of its values list several items ("a, b, c")."""


def _items(values: Iterable[str]) -> list[str]:
    """The items of a column of lists, each once (none for a column of plain values)."""
    values = [str(v) for v in values]
    lists = [v.split(",") for v in values if "," in v]
    if not values or len(lists) < _LISTED_SHARE * len(values):
        return []
    return list(dict.fromkeys(item.strip() for items in lists for item in items if item.strip()))


_SIZE_WORDS = {
    "xxs": ("extra extra small", "xx small"),
    "xs": ("extra small", "x small"),
    "s": ("small", "smalls"),
    "m": ("medium", "mediums", "regular"),
    "l": ("large", "larges"),
    "xl": ("extra large", "x large"),
    "xxl": ("extra extra large", "xx large", "double extra large"),
    "xxxl": ("xxx large", "triple extra large"),
}
"""A size column's letters said as words ("large pizzas": L), for a column holding sizes only."""


class Vocabulary:
    """Every value of the model's dimensions, keys and labels (as given), and its names, indexed by
    their normalised words."""

    def __init__(self, model: SemanticModel, values: Mapping[str, Iterable[str]]) -> None:
        self.model = model
        self._values: dict[str, list[tuple[str, str]]] = {}  # normalised words -> (column, value)
        for name, known in values.items():
            for value in known:
                words = normalise(str(value))
                if words:
                    self._values.setdefault(words, []).append((name, str(value)))
        dimensions = {c.name for c in model.with_role(Role.dimension)}
        self._dimensions = dimensions
        # A column of yes and no ("B2B": TRUE/FALSE): its true value, for "B2B orders"
        self.flags: dict[str, str] = {}
        for name in dimensions & set(values):
            answers = {normalise(str(v)): str(v) for v in values[name]}
            for yes, no in (("true", "false"), ("yes", "no"), ("y", "n")):
                if set(answers) == {yes, no}:
                    self.flags[name] = answers[yes]
        aliases: dict[str, list[tuple[str, str]]] = {}
        for name in dimensions & set(values):
            said = {normalise(str(value)) for value in values[name]}
            sayings = _SIZE_WORDS if said <= set(_SIZE_WORDS) else _VALUE_WORDS  # S, M, L: sizes, not men
            for value in values[name]:
                for alias in sayings.get(normalise(str(value)), ()):
                    aliases.setdefault(alias, []).append((name, str(value)))
        for alias, held in aliases.items():
            if alias not in self._values and len({column for column, _ in held}) == 1:
                self._values[alias] = held
        # A dimension's value by its initials ("uk": United Kingdom), for a question that writes them
        # in capitals ("the UK"): written small they are too often a word ("was" is no West Allis).
        initials = _initials(values, dimensions)
        self.initials = {key: held[0] for key, held in initials.items() if key not in self._values}
        for key, spellings in _COUNTRY_CAPITALS.items():  # "outside the US" of a file that writes "USA"
            held = [
                (n, str(v))
                for n in dimensions & set(values)
                for v in values[n]
                if normalise(str(v)) in spellings
            ]
            if key not in self.initials and len(held) == 1:
                self.initials[key] = held[0]
        self._fuzzy = [w for w in self._values if len(w) >= _MIN_FUZZY and not any(c.isdigit() for c in w)]
        # the words of a value of several ("partially" of *partially_refunded*): a typo closer to one
        # of them is that word's, left for the reader to respell (:meth:`spelling`), never the
        # nearest value of one word ("partial")
        parts = {
            p for w in self._values if " " in w for p in w.split() if len(p) >= _MIN_FUZZY and p.isalpha()
        }
        self._fuzzy += sorted(parts - set(self._values))
        # A value by its letters alone, spaced another way ("GTX Pro" for *GTXPro*, "tshirt" for
        # *T-shirt*): only where no other value is spelt so
        compact: dict[str, set[tuple[str, str]]] = {}
        for phrase, held in self._values.items():
            if len(joined := phrase.replace(" ", "")) >= _MIN_COMPACT:
                compact.setdefault(joined, set()).update(held)
        self._compact = {
            k: sorted(v) for k, v in compact.items() if len({c for c, _ in v}) == 1 and len(v) == 1
        }
        named = {c.name for c in model.with_role(Role.label, Role.key)}
        self._words: dict[str, set[tuple[str, str]]] = {}  # a word -> the names holding it
        for name in named & set(values):
            for value in values[name]:
                for word in set(normalise(str(value)).split()):
                    self._words.setdefault(word, set()).add((name, str(value)))
        # A word of a dimension's values of several words ("fashion" of *Fashion accessories*), for a
        # word nothing else read: a dimension's values are few, and a thing is named by a part of its name.
        self._value_words: dict[str, set[tuple[str, str]]] = {}
        for name in dimensions & set(values):
            for value in values[name]:
                value_words = normalise(str(value)).split()
                for word in set(value_words) if len(value_words) > 1 else ():
                    if len(word) >= 3 and word.isalpha() and word not in _GENERIC:
                        self._value_words.setdefault(word, set()).add((name, str(value)))
        # An item of a column of lists ("pizzas with mushrooms": "Chicken, Mushrooms, Garlic"), for a
        # phrase that names no value whole
        self._parts: dict[str, list[tuple[str, str]]] = {}
        for name in dimensions & set(values):
            for item in _items(values[name]):
                self._parts.setdefault(normalise(item), []).append((name, item))
        # Normalised name -> ("metric" | "column", name). Metrics first: "sales" in a question is the
        # revenue metric (a synonym) before it is the measure column the metric sums.
        self._names: dict[str, tuple[str, str]] = {}
        for metric in model.metrics:
            for name in (metric.name.replace("_", " "), metric.title, *metric.synonyms):
                self._names.setdefault(normalise(name), ("metric", metric.name))
        for column in model.columns:
            if column.role is not Role.ignore:
                for name in (column.name.replace("_", " "), column.title, *column.synonyms):
                    self._names.setdefault(normalise(name), ("column", column.name))
        for column in model.with_role(Role.key):  # "which customer", "per order": the entity's key
            if column.entity is not None:
                self._names.setdefault(column.entity.value, ("column", column.name))
        for grain, spoken in GRAIN_WORDS.items():
            if grain == "hour" and not model.clocked:
                continue  # no times of day: "hour" names nothing of this data
            for name in spoken:
                self._names.setdefault(normalise(name), ("grain", grain))
        for phrase, owner in _partial_names(model).items():
            self._names.setdefault(phrase, owner)
        self._forms = self._other_forms(model)

    def within_others(self, column: str, value: str) -> bool:
        """Whether other values of the column hold ``value``'s words and more (*Latte* in *Chai
        Latte*, *Tea* in *Herbal Tea*): a value said plain means itself, not those."""
        words = set(normalise(value).split())
        return any(
            words < set(phrase.split())
            for phrase, held in self._values.items()
            if any(c == column for c, _ in held)
        )

    def holds(self, column: str, value: str) -> bool:
        """Whether ``value`` is one of the column's own values, as the file writes it."""
        return (column, value) in self._values.get(normalise(value), [])

    def _other_forms(self, model: SemanticModel) -> dict[str, list[tuple[str, str]]]:
        """Each name, and each dimension's value, by its words' roots ("paid" for *Payment*,
        "branches" for *Branch*, "membership" for *Member*), and a name by its words other than a
        figure ("tax" for *Tax 5%*). Only what no other name shares; consulted for words nothing
        else read."""
        forms: dict[str, set[tuple[str, str]]] = {}

        def add(phrase: str, kind: str, name: str) -> None:
            for words in {phrase, " ".join(w for w in phrase.split() if not w.isdigit())}:
                if words:
                    forms.setdefault(_rooted(words), set()).add((kind, name))

        for phrase, (kind, name) in self._names.items():
            if kind != "grain":
                add(phrase, kind, name)
        dimensions = {c.name for c in model.with_role(Role.dimension)}
        for phrase, held in self._values.items():
            for column, value in held:
                if column in dimensions and not any(c.isdigit() for c in phrase):
                    forms.setdefault(_rooted(phrase), set()).add((column, value))
        return {k: sorted(v) for k, v in forms.items() if len(v) == 1 and k}

    def _beside_its_column(
        self, words: list[str], start: int, size: int, hits: list[tuple[str, str]]
    ) -> bool:
        columns = {column for column, _ in hits}
        around = [" ".join(words[max(0, start - 2) : start]), words[start - 1] if start else ""]
        around += [
            " ".join(words[start + size : start + size + 2]),
            " ".join(words[start + size : start + size + 1]),
        ]
        return any(self._names.get(w) in {("column", c) for c in columns} for w in around if w)

    def in_other_forms(self, words: Iterable[str]) -> Found:
        """What each of ``words`` names in another form of a name's word (see :meth:`_other_forms`):
        for the words of a question that nothing else read."""
        mentions: list[Mention] = []
        named: dict[str, list[str]] = {"column": [], "metric": []}
        used: list[str] = []
        for word in dict.fromkeys(words):
            held = self._forms.get(root(word))
            if not held and word.endswith("ed"):  # "aged" for *Age*, "priced" for *Price*: an "e" lost
                held = self._forms.get(root(word[:-1]))
            if not held and root(word).endswith("er"):  # "card payers" for *Payment*: who does it
                held = self._forms.get(root(root(word)[:-2]))
            if not held:
                continue
            kind, name = held[0]
            if kind in named:
                named[kind].append(name)
            else:
                mentions.append(Mention(kind, name, word))
            used.append(word)
        columns, metrics = (tuple(dict.fromkeys(named[kind])) for kind in ("column", "metric"))
        return Found(tuple(mentions), columns, metrics, (), tuple(used))

    @functools.cached_property
    def spelling(self) -> tuple[list[str], frozenset[str]]:
        """The words a typo may be corrected to: the model's own names (and their plurals:
        "catgories" is "categories") and the values of its dimensions, then the words of its names of
        things (customers, products), which only a keyboard slip may be corrected to (a name a letter
        away may be another one)."""
        own = {w for phrase in self._names for w in phrase.split()}
        own |= {plural for w in own if w.isalpha() and len(w) >= 4 for plural in plurals(w)[:1]}
        own |= {w for phrase in self._values for w in phrase.split() if not any(c.isdigit() for c in w)}
        names = frozenset(w for w in self._words if w not in own and w.isalpha())
        return sorted(w for w in own | names if len(w) >= 3 and w.isalpha()), names

    def codes(self, word: str) -> list[tuple[str, str]]:
        """The dimensions' values that are ``word`` written as a code in capitals ("US", "OK"), for a
        question that writes it so: :meth:`find` reads none from a word it also is ("us", "ok")."""
        return [(c, v) for c, v in self._values.get(word, []) if c in self._dimensions and v.isupper()]

    def dimension_of_word(self, word: str) -> str | None:
        """The one dimension whose values of several words hold ``word`` (or its singular): the
        question names one of them by it, or several ("accessories": two product lines, to be
        offered as a choice, never guessed)."""
        held = self._value_words.get(word) or self._value_words.get(singular(word), set())
        columns = {column for column, _ in held}
        return columns.pop() if len(columns) == 1 else None

    def holding_word(self, word: str) -> list[tuple[str, str]]:
        """The values of several words of any dimension that hold ``word`` (or its singular), by
        (column, value): "mall" in *BSQ Mall x1364 - Zales* and *Brunswick Sq Mall*."""
        return sorted(self._value_words.get(word) or self._value_words.get(singular(word), set()))

    def starting_with(self, word: str) -> list[tuple[str, str]]:
        """A dimension's values with a word that ``word`` begins and is not ("metro": *Metrocity* and
        *Metropol AVM*; "tech": *Technology*): a name said short, which the question may mean; by
        (column, value), in order."""
        if len(word) < _MIN_PREFIX or not word.isalpha():
            return []
        return sorted(
            (column, value)
            for phrase, held in self._values.items()
            if any(w.startswith(word) and w != word for w in phrase.split())
            for column, value in held
            if column in self._dimensions
        )

    def containing(self, words: list[str]) -> dict[str, list[str]]:
        """The names (of keys and labels) that hold every one of ``words``, by column: "xerox 1881"
        is in "Xerox 1881" and nowhere else; "chand" in three customers' names."""
        found: set[tuple[str, str]] | None = None
        for word in words:
            holding = self._words.get(word, set())
            found = holding if found is None else found & holding
            if not found:
                return {}
        by_column: dict[str, list[str]] = {}
        for column, value in sorted(found or ()):
            by_column.setdefault(column, []).append(value)
        return by_column

    def _plural_value(self, phrase: str) -> list[tuple[str, str]] | None:
        """A dimension's value written in the plural, said in the singular ("bike units": *Bikes*,
        "accessory sales": *Accessories*)."""
        if not phrase.isalpha() or len(phrase) < 3:
            return None
        for plural in plurals(phrase):
            held = [(c, v) for c, v in self._values.get(plural, []) if c in self._dimensions]
            if held:
                return held
        return None

    def _modifies(self, first: str, second: str) -> bool:
        """Whether a thing's key named just before another column says whose that column is ("car
        brand", "order date", "customer segment"): the column after is what is meant."""
        before, after = self.model.column(first), self.model.column(second)
        return before.role is Role.key and after.role is not Role.key and before.name != after.name

    def find(self, question: str) -> Found:
        words = normalise(question).split()
        mentions: list[Mention] = []
        named: dict[str, list[str]] = {"column": [], "metric": [], "grain": []}
        used = [False] * len(words)
        phrases: list[str] = []
        at: dict[int, tuple[int, str]] = {}  # a column's name where it starts: where it ends, the column
        for size in range(min(MAX_WORDS, len(words)), 0, -1):  # the longest match first
            for start in range(len(words) - size + 1):
                if any(used[start : start + size]):
                    continue
                phrase = " ".join(words[start : start + size])
                one = singular(phrase)
                hits = self._values.get(phrase) or self._values.get(one) or self._plural_value(phrase)
                if not hits and (size > 1 or phrase.isalpha()) and not _JOINING & set(phrase.split()):
                    hits = self._compact.get(phrase.replace(" ", ""))
                if hits and phrase in _PLAIN_WORDS and not self._beside_its_column(words, start, size, hits):
                    hits = None  # "a" is Branch A only beside "branch": else the article
                if hits and _coded(hits, phrase) and not self._beside_its_column(words, start, size, hits):
                    hits = None  # "pls" is no PL, "ok" no Oklahoma: a code is written as it is
                name = self._names.get(phrase) or self._names.get(one)
                if hits and name is not None and name[0] == "column":
                    # "which city…" of a file whose cities include one written "City": the column;
                    # "top 3 cities" of a file with a kind of bike "City" too: the column, as the
                    # plural names no value
                    plural_only = phrase != one and phrase not in self._values
                    before_its_value = any(  # "City Bremen": the city column's, not a kind of bike "City"
                        column == name[1]
                        for after in (words[start + size : start + size + n] for n in (1, 2, 3))
                        for column, _ in self._values.get(" ".join(after), [])
                    )
                    hits = [
                        (column, value)
                        for column, value in hits
                        if column != name[1] and not plural_only and not before_its_value
                    ]
                items = None if hits or name else self._parts.get(phrase) or self._parts.get(one)
                if hits:
                    mentions.extend(Mention(column, value, phrase) for column, value in hits)
                elif items:
                    mentions.extend(Mention(column, item, phrase, part=True) for column, item in items)
                elif name is not None:
                    named[name[0]].append(name[1])
                    if name[0] == "column":
                        at[start] = (start + size, name[1])
                else:
                    continue
                used[start : start + size] = [True] * size
                phrases.append(phrase)
        for end, column in at.values():  # "which car brand": the car's brand, not each car
            after = at.get(end)
            if after is not None and self._modifies(column, after[1]):
                named["column"].remove(column)
        for start, word in enumerate(words):  # a misspelt value, one word at a time
            if used[start] or len(word) < _MIN_FUZZY or word in self._words or is_english(word):
                continue  # a word of some name ("Tamara" of Tamara Chand), or of English ("median" of
                # a city *Media*), is no misspelling of another
            close = difflib.get_close_matches(word, self._fuzzy, n=1, cutoff=FUZZY_CUTOFF)
            if close and close[0] not in self._names and close[0] in self._values:
                mentions.extend(Mention(c, v, word, exact=False) for c, v in self._values[close[0]])
                phrases.append(word)
        columns, metrics, grains = (
            tuple(dict.fromkeys(named[kind])) for kind in ("column", "metric", "grain")
        )
        return Found(tuple(mentions), columns, metrics, grains, tuple(phrases))

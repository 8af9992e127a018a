"""The question's words before any reading: normalized, typos corrected, and the word lists every
part of the reader shares.

``normalize`` lower-cases the question and evens out its quotes, punctuation and abbreviations
("u.k.", "non-UK", "france's"), so the other parts match plain words. ``spelled`` corrects typos of
the tool's own words only: never a name written in capitals or in quotes, and a name of the data only
from a keyboard slip (docs/architecture.md#answers-by-construction). ``COMMON`` is the English that
is never a product's words nor a sign of a misreading.
"""

from __future__ import annotations

import calendar
import difflib
import re
from collections.abc import Collection
from decimal import Decimal

from .periods import CALENDAR_WORDS, NUMBER_WORDS, ORDINALS
from .vocabulary import Vocabulary

COMMON = frozenset(
    """a an the of in on at to for from by with and or but than then so as is are was were be been being am
    do does did done have has had what which who whom whose how many much when where why there here this
    that these those it its they them their our ours we us you your i me my mine please show give tell plus
    doing list let know get got see find look want need can could would should will shall may might about over
    under into out up down all any some each every total overall whole entire number count amount figure
    figures so far ever time times during between across among per vs also just only again same
    other another more most less least very really quite overall grand sum ok okay thanks hi hello now
    compared compare comparison against versus change changed difference performed perform did make made
    bring brought bringing brings generate generated generates come comes came account contribute
    contributed contributes place placed put buy bought purchase purchased spend spent sold sell selling
    value level whats what's hows how's rank ranked ranking biggest largest number one top bottom best
    worst first last previous prior preceding data shop store business company us our customers' like look
    looking break breakdown split something anything everything someone anyone stuff thing things
    everywhere anywhere everyone everybody
    ask asked tell told say said mention mentioned remember recall conversation chat question questions
    answer answered different distinct unique individual separate big large small together combined
    altogether jointly buys buying purchasing spends spending ordered ordering bigger larger smaller higher
    lower greater better worse take took taken receive received one ones i'd i'm i've we'd we're let's
    quick quickly brief briefly short instead rather nr num pls plz thx thanks
    go goes going went gone if behind coming different question raise raised raising
    theirs yours hers based located situated terms right currently presently moment else roughly
    approximately approx around wondering wonder back full single busy drove drive drives driving driven
    drivers driver caused cause causing responsible
    u ur btw fyi sorry remind anyway cheers great cool nice fair enough hey ie eg though tho alright
    think guess reckon suppose called named column columns
    contain contains containing menu catalog catalogue lineup still actually
    onwards onward forwards within ship ships shipped include includes including incl everything
    ahead behind stack stacks stacked aside we've you've they've weve youve theyve
    i'll we'll you'll they'll it's that's there's here's you're they're""".split()  # noqa: SIM905
)
"""Common English: never a product's words, never a sign of a misreading. Calendar words are not
among them: "orders last week" or "revenue since 2024" read without their period would be a silent
misreading, so a calendar word the periods did not use leaves the question not understood."""

CALENDAR_NAMES = frozenset(
    m.lower()
    for m in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name, *calendar.day_abbr)
    if m
)
"""Capitalised, but never a product's name ("What share of 2024 came in July?")."""

QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]|(?<![\w'])['\u2018]([^'\u2019]{2,80}?)['\u2019](?![\w'])")
"""A name in quotes, double or single ("'STAR SPACEBOY BAKING SET'"); an apostrophe inside a word
("don't", "customers'") opens none."""


_SHORTHAND_WORDS = {
    "opp": "opportunity",
    "opps": "opportunities",
    "rev": "revenue",
    "revs": "revenue",
    "val": "value",
    "vals": "values",
    "qty": "quantity",
    "qtys": "quantities",
    "amt": "amount",
    "amts": "amounts",
    "cust": "customer",
    "custs": "customers",
    "txn": "transaction",
    "txns": "transactions",
    "yr": "year",
    "yrs": "years",
    "mos": "months",
    "mth": "month",
    "mths": "months",
    "qtr": "quarter",
    "qtrs": "quarters",
    "wk": "week",
    "wks": "weeks",
    "hr": "hour",
    "hrs": "hours",
    "dept": "department",
    "depts": "departments",
    "prod": "product",
    "prods": "products",
    "pmt": "payment",
    "pymt": "payment",
    "mgr": "manager",
    "ctry": "country",
    "yoy": "year over year",
    "mom": "month over month",
    "qoq": "quarter over quarter",
    "ytd": "this year",
}
"""An analyst's shorthand for the words of figures, periods and columns ("rev", "avg order val", "qty",
"txns", "last 3 mos", "qtr by qtr", "yoy growth", "revenue ytd", "which dept"): each is that word
everywhere, as a spreadsheet's column headers use them."""
_SHORTHAND = re.compile(r"\b(?:" + "|".join(_SHORTHAND_WORDS) + r")\b(?!['.-]\w)")


_SLIP_WORDS = {"teh": "the", "hte": "the", "mnay": "many", "hwo": "how", "waht": "what", "wht": "what"}
"""Slips of the commonest words, read as meant before anything else (a part of some name, else)."""
_SLIPS = re.compile(r"\b(?:" + "|".join(_SLIP_WORDS) + r")\b")
_GROUPED = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,])")
"""A number written with thousands separators ("200,000"), never a list of years ("2020,2021")."""
_SCALES = {"k": 1_000, "thousand": 1_000, "grand": 1_000, "m": 10**6, "mm": 10**6, "mn": 10**6,
           "mil": 10**6, "million": 10**6, "millions": 10**6,
           "b": 10**9, "bn": 10**9, "billion": 10**9}  # fmt: skip
_SCALED = re.compile(
    r"(?<!\blast\s)(?<!\bpast\s)(?<!\bnext\s)(?<![\w.])(?P<number>\d+(?:\.\d+)?)\s?(?P<scale>"
    + "|".join(sorted(_SCALES, key=len, reverse=True))
    + r")\b"
)
"""An amount said with its scale ("20 million", "$1.5m", "200k"); "the last 6m" is months."""


def _ungrouped(match: re.Match[str]) -> str:
    """The number without its separators; one that would read as a year keeps a decimal ("over
    2,000" is an amount, never the year 2000)."""
    digits = match[0].replace(",", "")
    return f"{digits}.0" if re.fullmatch(r"(?:19|20)\d\d", digits) else digits


def _unscaled(match: re.Match[str]) -> str:
    amount = Decimal(match["number"]) * _SCALES[match["scale"]]
    return f"{amount.normalize():f}"


MONTH_NAMES = "|".join(
    sorted(
        {m.lower() for m in (*calendar.month_name, *calendar.month_abbr) if m} | {"sept"},
        key=len,
        reverse=True,
    )
)
"""A month's name or its abbreviation, longest first, as an alternation for a pattern."""
_RESTATED = re.compile(
    rf"\b(?P<gap>(?:q[1-4]|h[12]|half|quarter)[^()]{{0,24}}?)\s*\(\s*(?:(?:{MONTH_NAMES})\.?"
    rf"(?:\s*(?:[-\u2013\u2014/&,+]|and|to|through|thru)\s*)?)+(?:(?:19|20)\d\d)?\s*\)"
)
"""Months in parentheses after the quarter or half they make up ("H2 (Jul-Dec)", "Q1 (Jan, Feb,
Mar)"): said again, not a period of their own."""


def normalize(question: str) -> str:
    text = question.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = _RESTATED.sub(lambda m: m["gap"], text)  # "in H2 (Jul-Dec)": H2
    text = re.sub(
        r"\b(?:trailing|rolling)\s+(?=\d|[a-z]+\s+(?:days?|weeks?|months?|years?)\b)", "last ", text
    )
    text = re.sub(r"(?<![\w'])'|'(?![\w])(?<!s')", " ", text)  # quotes around a name, not "don't"
    text = re.sub(r"\s*(?:->|=>|\u2192)\s*", " to ", text)  # "april -> may"
    text = re.sub(r"(?<=\w)\u2013(?=\w)", "-", text)  # "Mar\u2013May": a range, as a hyphen writes it
    text = re.sub(r"#\s*of\b", "number of", text)  # "# of orders"
    text = _SLIPS.sub(lambda m: _SLIP_WORDS[m[0]], text)  # "across teh whole file": never a name's part
    text = re.sub(r"\bended\s+up\b", " ", text)  # "orders that ended up returned" (never "will end up")
    text = _GROUPED.sub(_ungrouped, text)  # "over 200,000": one number
    text = _SCALED.sub(_unscaled, text)  # "over 20 million", "under $1.5m", "200k"
    text = re.sub(r"[?!,;:()\"“”]", " ", text)
    text = re.sub(r"(?<=[a-z]{3})\.(?=\s)", " ", text)  # "ok, something else. whats the revenue"
    text = re.sub(r"\bper cent\b", "percent", text)
    text = re.sub(r"(?<=[a-z])-wise\b", " ", text)  # "revenue-wise": the revenue
    text = re.sub(r"\b(is|are|was|were|do|does|did|has|have|had)n'?t\b", r"\1 not", text)  # "aren't", "didnt"
    text = re.sub(r"\b(how|what|who|where|when|why)'d\b", r"\1 did", text)  # "how'd that compare"
    text = _SHORTHAND.sub(lambda m: _SHORTHAND_WORDS[m.group(0)], text)
    text = re.sub(r"\b(excl|incl|approx|vs)\.(?=\s)", r"\1", text)  # "revenue excl. France"
    text = re.sub(r"\b([a-z])\.([a-z])\.(?:([a-z])\.)?(?!\w)", r"\1\2\3", text)  # "u.k." is "uk"
    text = re.sub(r"\b(non|ex)-(?=\w)", r"\1 ", text)  # "non-UK", "ex-At Risk": exclusion cues
    text = re.sub(r"(?<=\w)'s\b", "", text)  # "france's revenue": the possessive names the country
    # "invoices (that) got cancelled": the cancelled invoices
    text = re.sub(
        r"\b(orders|invoices|transactions|purchases|sales)\s+(?:that\s+|which\s+)?"
        r"(?:got|get|were|was|have been|had been|been)\s+(cancell?ed|refunded|returned)\b",
        r"\2 \1",
        text,
    )
    # "best-selling", "lowest-revenue": the superlative and its word
    text = re.sub(r"\b(best|top|worst|least|most|fastest|slowest|\w+est)-(?=[a-z])", r"\1 ", text)
    # "the first and second half of 2025": two periods, each with its noun
    text = re.sub(
        r"\b(first|second|third|fourth)\s+and\s+(?:the\s+)?(first|second|third|fourth)\s+(half|quarter)s?\b",
        r"\1 \3 and the \2 \3",
        text.replace("halves", "half"),
    )
    return re.sub(r"\s+", " ", text).strip().rstrip(".")


def base_forms(word: str) -> tuple[str, ...]:
    """What an inflected word may be a form of: "gets" of *get*, "used" of *use*, "counting" of
    *count*, "shipped" of *ship*, "carries" of *carry*. A word list of plain English names each word
    once; its forms of tense and number are the same word, never a sign of a misreading."""
    forms = [word]
    if len(word) < 4:
        return tuple(forms)
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    elif word.endswith("es"):
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])
    for ending in ("ed", "ing"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stem_ = word[: -len(ending)]
            forms += [stem_, stem_ + "e"]
            if stem_[-1] == stem_[-2]:  # "shipped", "stopping"
                forms.append(stem_[:-1])
            if stem_.endswith("i"):  # "carried"
                forms.append(stem_[:-1] + "y")
    return tuple(forms)


def is_plain(word: str, plain: Collection[str]) -> bool:
    """Whether ``word`` is in ``plain`` in any of its forms of tense and number (:func:`base_forms`)."""
    return any(form in plain for form in base_forms(word))


EXCLUDED_AFTER = ("excluded", "not included", "left out", "aside")
"""Words after a name that leave it out ("total sales, 2025, uk excluded")."""


def stem(word: str) -> str:
    """A word less its endings of number and tense: "shoppers" and "shopper" are one word."""
    return re.sub(r"(?:ing|ed|es|s)$", "", word.lower())


def subject_stem(word: str) -> str:
    """A word less the endings that make it another word of the same subject: "profitable",
    "profitability" and "profits" are all about profit, "costing" about cost."""
    return re.sub(r"(?<=\w{3})(?:ability|able|ably|ing|ed|s)$", "", word)


def spelled(text: str, vocabulary: Vocabulary, original: str = "") -> tuple[str, dict[str, str]]:
    """Typos of the tool's own words corrected ("custmers" -> "customers"): only words of five letters
    or more, only to a known word that is close (difflib ratio 0.8, 0.85 for words of three or four
    letters) and starts with the same letter, never a word already known. With the corrections made
    (corrected -> as typed): a word the reading then does not understand is reported as the user
    typed it ("slice", not "since")."""
    known = set(COMMON) | set(NUMBER_WORDS) | set(ORDINALS)  # "three" is no typo of "there"
    known |= CALENDAR_WORDS  # "christmas eve" is no "christmas ever"
    known |= {w for p, terms in vocabulary.terms.items() if p != "rank_by" for t in terms for w in t.split()}
    known |= {w for cues in vocabulary.cues.values() for c in cues for w in c.split()}  # "leaving"
    known |= {w for things in vocabulary.left_out.values() for t in things for w in t.split()}
    known |= {w for phrase in EXCLUDED_AFTER for w in phrase.split()}  # "excluded" is no "exclude"
    lacking = {
        w for subject in vocabulary.not_in_data for w in subject.split()
    }  # "delivery" is no "delivered"
    named = {w for names in vocabulary.entities.values() for n in names for w in n.split()} - known
    known |= named
    targets = sorted(
        w for w in known if len(w) >= 3
    )  # what the data lacks is no target: "water" is no "weather"
    known |= lacking
    # a verb of change is known but no typo target: "deadline" is not "declined"
    known |= {w for t in vocabulary.choices("rank_by") for w in t.split()}
    if not original.isupper():  # a name in capitals ("CHARLIE+LOLA LUNCH BOX") is no typo
        known |= {w.lower() for w in re.findall(r"\b[A-Z]{2,}\b", original)}
    quoted = " ".join(double or single for double, single in QUOTED.findall(original))
    known |= set(normalize(quoted).split())  # a name in quotes is as meant: 'pink love shopper bag'
    words, corrected = [], {}
    for word in text.split(" "):
        if word not in known and subject_stem(word) not in lacking:
            close = correction(word, targets, named)
            if close is not None:
                corrected[close] = word
                word = close
        words.append(word)
    return " ".join(words), corrected


def correction(word: str, targets: list[str], names: Collection[str]) -> str | None:
    """The known word ``word`` is a typo of, if it is close enough: three letters or more, close
    (difflib ratio 0.8, 0.85 for words of three or four letters: "whch" is "which", "totl" "total"),
    with the same first letter, and for a name of the data (``names``) only a keyboard slip."""
    if len(word) < 3 or not word.isalpha():
        return None
    cutoff = 0.8 if len(word) >= 5 else 0.85
    # typos keep the first letter: "night" is no "might"
    close = [c for c in difflib.get_close_matches(word, targets, n=3, cutoff=cutoff) if c[0] == word[0]][:1]
    if not close and len(word) >= 4:  # "wset": a slip difflib scores low, when only one word fits
        slips = [t for t in targets if t[0] == word[0] and _one_typo(word, t)]
        close = slips if len(slips) == 1 else []
    if (
        close
        and (close[0] not in names or _one_typo(word, close[0]) or _vowel_for_vowel(word, close[0]))
        and (len(word) > 3 or len(close[0]) == len(word))  # "set" is no "sept"
        and (len(close[0]) > 3 or len(close[0]) == len(word))  # "deck" is no "dec"
    ):
        return close[0]
    return None


_VOWELS = frozenset("aeiouy")
_SPELLED_LONG = 6


def other_vowel(word: str, names: Collection[str]) -> str | None:
    """The one name of ``names`` that ``word`` spells with one vowel for another, if one does."""
    found = [name for name in names if _vowel_for_vowel(word, name)]
    return found[0] if len(found) == 1 else None


def _vowel_for_vowel(typed: str, name: str) -> bool:
    """``typed`` is ``name`` spelt with one vowel for another, in a long word ("colombian" for the
    file's "Columbian", "jewelery" stays no match): how names are misspelt, unlike a consonant for
    another ("Iceland" is no "Ireland")."""
    if len(typed) != len(name) or len(name) < _SPELLED_LONG:
        return False
    differ = [(a, b) for a, b in zip(typed, name, strict=True) if a != b]
    return len(differ) == 1 and set(differ[0]) <= _VOWELS


def short_word(word: str, targets: frozenset[str]) -> str | None:
    """The one word of ``targets`` that a word of two or three letters is with a letter left out
    ("ws" is "was", "nd" "and"); None when none or several are."""
    if not 2 <= len(word) <= 3 or not word.isalpha():
        return None
    fits = [t for t in targets if len(t) == len(word) + 1 and _one_typo(word, t)]
    return fits[0] if len(fits) == 1 else None


_KEYBOARD = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours(a: str, b: str) -> bool:
    """Keys side by side or above each other on a QWERTY keyboard: the letters a finger slips to."""
    where = {c: (r, i) for r, row in enumerate(_KEYBOARD) for i, c in enumerate(row)}
    if a not in where or b not in where:
        return False
    (ra, ia), (rb, ib) = where[a], where[b]
    return abs(ra - rb) <= 1 and abs(ia - ib) <= 1


def _one_typo(typed: str, name: str) -> bool:
    """``typed`` is ``name`` with one slip: two letters swapped, one left out, one added, or one
    struck on a neighbouring key. A name is corrected only so: a word a letter away that is no slip
    ("iceland" for "ireland") may be another name the data does not hold, to be said so, not swapped."""
    if typed == name:
        return True
    if len(typed) == len(name):
        diff = [i for i, (a, b) in enumerate(zip(typed, name, strict=True)) if a != b]
        if len(diff) == 1:
            return _neighbours(typed[diff[0]], name[diff[0]])
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and typed[diff[0]] == name[diff[1]]
            and typed[diff[1]] == name[diff[0]]
        )
    short, long = sorted((typed, name), key=len)
    return len(long) - len(short) == 1 and any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


TYPO_PRONE = {"mnay": "many", "hwo": "how", "waht": "what", "wat": "what", "wht": "what", "teh": "the",
               "hw": "how", "revnue": "revenue", "abt": "about", "bout": "about",
               "thru": "through", "qty": "quantity", "diff": "different", "gimme": "give me",
               "v": "vs", "no.": "number of"}  # fmt: skip
"""Short transpositions difflib's length rule leaves alone (four letters or fewer)."""


def singular(parameter: str) -> str:
    """ "countries" -> "country", "segments" -> "segment": a list parameter's dimension."""
    return re.sub(r"ies$", "y", parameter).removesuffix("s")


def in_capitals(original: str) -> frozenset[str]:
    """The words of names written in capitals, three words or more ("IVORY CHRISTMAS SHOPPER BAG"),
    in a question not all in capitals."""
    if original.isupper():
        return frozenset()
    runs = re.findall(r"\b[A-Z][A-Z0-9'&+-]*(?:\s+[A-Z0-9][A-Z0-9'&+-]*){2,}\b", original)
    return frozenset(w.lower() for run in runs for w in run.split())

"""The names a question gives: the tool's entities (countries as stored, with their aliases), ids,
quoted names, what it leaves out, and the words left over at the end.

A name is matched as the data stores it; after an exclusion cue ("except", "non-UK", "without our
biggest customer") it is left out, and names joined by "and", "or" or commas are one list. What no
part of the reading used is judged last (``leftovers``): a subject the data lacks, a product's words,
or not understood (docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from .periods import NUMBER_WORDS
from .reading import Marks, Reading
from .vocabulary import Vocabulary, either
from .words import CALENDAR_NAMES, COMMON, EXCLUDED_AFTER, is_plain, singular, subject_stem

GROUP_CUES = (
    r"(?:which|what|top|bottom|best|worst|biggest|largest|smallest|leading|highest|lowest|most|least|by|per"
    r"|each|every|rank|ranked|strongest|weakest|busiest|quietest|who|across|between|among|amongst)"
)
"""Words that rank or break down what follows them ("top 5 customers", "which country", "split
between segments")."""


def _left_out_before(before: str, free: str, vocabulary: Vocabulary) -> re.Match[str] | None:
    """The cue that leaves a quoted name out, at the end of the text before it ("except for")."""
    cues = vocabulary.cues.get(f"exclude_{free}", [])
    if f"exclude_{free}" not in vocabulary.parameters or not cues:
        return None
    return re.search(rf"(?<![\w-])(?:{either(cues)})\s+(?:for\s+)?(?:the\s+)?$", before)


_JOINED = re.compile(r"[\s']*(?:(?:and|or|&)[\s']+)?")
"""What joins two names of one list: "'A' and 'B'", "'A', 'B'" (the comma is a space by then, a
closing quote after an "s" is still there: "'… jars' and")."""


def quoted_names(
    text: str,
    quoted: list[str],
    spans: list[tuple[int, int] | None],
    marks: Marks,
    reading: Reading,
    vocabulary: Vocabulary,
) -> None:
    """Quoted names are the free-text parameter's: "'A' and 'B'" both, looked up together; after an
    exclusion cue ("revenue except for 'A' and 'B'") left out, up to a name after other words. A
    parameter that takes one name cannot take several ("of 'A', 'B' and 'C'" is not 'A' alone)."""
    free = vocabulary.free_text
    assert free is not None
    named: dict[str, list[str]] = {}
    key, end = free, 0
    for phrase, span in zip(quoted, spans, strict=True):
        start = span[0] if span else end
        if cue := _left_out_before(text[:start], free, vocabulary):
            key = f"exclude_{free}"
            marks.take(*cue.span())
        elif end == 0 or not _JOINED.fullmatch(text[end:start]):
            key = free
        named.setdefault(key, []).append(phrase.strip())
        end = span[1] if span else end
    if not vocabulary.free_list and len(quoted) > 1:
        reading.names = [q.strip() for q in quoted]
    for key, names in named.items():
        reading.arguments[key] = vocabulary.free_value(names)


def read_top_left_out(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Average order value without our biggest customer", "revenue excluding the top 3
    countries": the biggest of a kind left out (``exclude_top``), not a ranking of that kind."""
    if "exclude_top" not in vocabulary.parameters:
        return
    # the grouping's words for each kind it leaves out ("client", "customers")
    of = vocabulary.enums.get("exclude_top_of", [])
    kinds = {t: v for t, v in vocabulary.choices("group_by").items() if v in of}
    if not kinds:
        return
    biggest = either(t for t, v in vocabulary.choices("order").items() if v == "highest" and " " not in t)
    count = rf"(\d{{1,2}}|{'|'.join(NUMBER_WORDS)})"
    found = re.search(
        rf"(?<![\w-])(?:{vocabulary.leaving()})\s+(?:the\s+|our\s+|its\s+|their\s+)?(?:{count}\s+)?(?:{biggest})\s+"
        rf"(?:{count}\s+)?({either(kinds)})\b",
        text,
    )
    if found is None or not marks.free(*found.span()):
        return
    number = found[1] or found[2]
    args["exclude_top"] = 1 if number is None else int(number) if number.isdigit() else NUMBER_WORDS[number]
    args["exclude_top_of"] = kinds[found[3]]
    marks.take(*found.span())


def read_left_out(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """An exclusion flag: its own phrase ("gross"), or a thing it leaves out after any exclusion cue
    or before "excluded" ("not counting the returns", "cancellations excluded"). Read before the
    measures, whose words ("cancellations") the things may share."""
    cue, after = vocabulary.leaving(), either(EXCLUDED_AFTER)
    for parameter, things in vocabulary.left_out.items():
        thing = either(things)
        patterns = [rf"\b(?:{thing})\s+(?:{after})\b"]
        if cue:
            patterns.append(rf"\b(?:{cue})\s+(?:(?:the|any|all|our)\s+)?(?:{thing})\b")
        if phrases := vocabulary.cues.get(parameter):
            patterns.append(rf"(?<![\w-])(?:{either(phrases)})(?![\w-])")
        for pattern in patterns:
            for found in re.finditer(pattern, marks.text):
                if marks.free(*found.span()):
                    args[parameter] = True
                    marks.take(*found.span())


_NOW = re.compile(
    r"\b(?:do|does)\s+(?:we|i)\s+(?:currently\s+)?have\b|\bcurrently\b|\bright now\b|\bat the moment\b"
)
"""A question about how things stand, not about a period ("how many … do we have?")."""


def read_entities(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary, original: str) -> None:
    now = "period" not in args and bool(_NOW.search(marks.text))
    for parameter, names in vocabulary.entities.items():
        excluded = vocabulary.excluded_of.get(parameter)
        cues = vocabulary.cues.get(excluded or "", [])
        found: list[tuple[int, int, str]] = []
        for name in sorted(names, key=len, reverse=True):
            if name in COMMON and not re.search(rf"\b{re.escape(name.upper())}\b", original):
                continue  # "us" is a country only when written "US"
            for start, end in marks.find(name):
                if _longer_name(name, original) or _in_measure_words(
                    marks, start, end, vocabulary, original, now=now
                ):
                    continue  # "New Zealand" is no "New" segment, nor are "new customers"
                marks.take(start, end)
                found.append((start, end, names[name]))
        excluding_until: int | None = None  # "excluding Germany and France": the list goes on
        for start, end, stored in sorted(found):
            cue = _cue_before(marks, start, cues)
            after = re.match(rf"\s+(?:{'|'.join(EXCLUDED_AFTER)})\b", marks.text[end:]) if excluded else None
            if after:  # "total sales, 2025, uk excluded"
                marks.take(end, end + after.end())
            listed = excluding_until is not None and re.fullmatch(
                r"\s*(?:,|and|or|nor|&)?\s*(?:the\s+)?", marks.text[excluding_until:start]
            )
            target = excluded if excluded and (cue is not None or listed or after) else parameter
            if cue is not None:
                marks.take(cue, start)
            excluding_until = end if target == excluded else None
            # "the At Risk segment": the noun of the list's own name goes with the entity; the noun of
            # what it describes ("UK customers", "non-UK buyers") may be the measure, never a breakdown
            if noun := re.match(rf"\s+{re.escape(parameter.rstrip('s'))}s?\b", marks.text[end:]):
                marks.take(end, end + noun.end())
            elif (
                (noun := re.match(r"\s+([a-z]+)\b", marks.text[end:]))
                and describes(noun[1], vocabulary)
                and not re.search(
                    rf"{GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", marks.text[:start].removesuffix(" by ")
                )
            ):  # "top 5 UK customers" ranks the customers; "how many UK customers" and "spent by UK
                # customers" count them
                marks.qualifiers.add(end + noun.start(1))
            if stored not in args.setdefault(target, []):
                args[target].append(stored)
            marks.named.setdefault(target, start)


def _in_measure_words(
    marks: Marks, start: int, end: int, vocabulary: Vocabulary, original: str, *, now: bool = False
) -> bool:
    """ "How many new customers did we win?": a name inside a measure's words ("new customers") is
    part of them, unless it is written as a name, capitalised inside the sentence ("New customers" as
    the question's first words is the measure; "our New customers" the segment), or the question
    asks how things stand now, with no period (``now``: "how many new customers do we have?" counts
    the New segment: over all time every customer was new once)."""
    if now:
        return False
    name = marks.text[start:end]
    written = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", original, re.IGNORECASE)]
    if any(at > 0 and original[at].isupper() for at in written):
        return False
    return any(
        s <= start and end <= s + len(term) and len(term) > end - start
        for term in vocabulary.choices("measure")
        if " " in term
        for s, _ in marks.find(term)
    )


def describes(word: str, vocabulary: Vocabulary) -> bool:
    """The word names the things an id labels ("customers", "buyers" for ``customer_id``): after a
    country or a segment it says whose, not what to count or rank."""
    return vocabulary.choices("group_by").get(word) in vocabulary.ids


def _longer_name(name: str, original: str) -> bool:
    """The name is written as the start of a longer capitalised one ("New Zealand", "New York")."""
    pattern = rf"(?i:\b{re.escape(name)})\s+[A-Z][a-z]"
    written = re.search(pattern, original)
    return written is not None and not re.search(
        rf"(?i:\b{re.escape(name)})\s+(?:[A-Z]{{2,}}|[a-z])", original
    )


def _cue_before(marks: Marks, start: int, cues: list[str]) -> int | None:
    """Where an exclusion cue ends right before ``start`` ("apart from the UK"), if one does."""
    if not cues:
        return None
    found = re.search(  # "besides those in the UK"
        rf"(?<!\w)(?:{either(cues)})(?:\s+(?:those|the ones|ones|people|buyers|customers))?"
        rf"(?:\s+(?:of|for|in|from|to|by|at))?(?:\s+the)?\s*$",
        marks.text[:start],
    )
    return found.start() if found else None


def read_ids(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    for word, parameter in vocabulary.ids.items():
        excluded = f"exclude_{parameter}s"
        cues = sorted(vocabulary.cues.get(excluded, []), key=len, reverse=True)
        leaving = re.compile(rf"\b(?:{either(cues)})\s+(?:the\s+)?$") if cues else None
        excluding_until: int | None = None  # "except customer 14646 and customer 18102": the list goes on
        for found in re.finditer(rf"\b{re.escape(word)}s?\s*(?:id|number|no\.?|#)?\s*#?(\d{{3,12}})\b", text):
            if marks.free(found.start(1), found.end(1)):
                # "everyone except customer 14646": the id left out, when the tool can leave one out
                cue = leaving.search(text[: found.start()]) if leaving else None
                listed = excluding_until is not None and re.fullmatch(
                    r"\s*(?:,|and|or|&)?\s*", text[excluding_until : found.start()]
                )
                if cue or listed:
                    args.setdefault(excluded, []).append(int(found[1]))
                    excluding_until = found.end()
                else:
                    args[parameter] = int(found[1])
                    excluding_until = None
                marks.take(cue.start() if cue else found.start(), found.end())


def bare_id(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "How many orders has 16705 placed?": a number without its label, not a year, that is the
    subject of a verb the tool says its id goes with, is that id (the answer names it: "customer
    16705 (United Kingdom, …)"), when the question has no other id."""
    if any(p in args for p in vocabulary.ids.values()):
        return
    for parameter, verbs in vocabulary.id_verbs.items():
        pattern = either(verbs)
        found = [
            m
            for m in re.finditer(rf"\b(\d{{4,12}})\s+(?:\w+\s+)?(?:{pattern})\b", text)
            if marks.free(*m.span(1)) and not 1900 <= int(m[1]) <= 2100
        ]
        if len(found) == 1:
            args[parameter] = int(found[0][1])
            marks.take(*found[0].span(1))
            return


def leftovers(marks: Marks, reading: Reading, vocabulary: Vocabulary, original: str) -> None:
    """Words the reading did not use: a subject the tool says the data lacks, a product's words
    (only after the word "product" or the like: a guess would turn any misread word into a product
    lookup), or not understood. A number left over (an id without its label) is not understood."""
    free = vocabulary.free_text
    cues = [t for t, v in vocabulary.choices("group_by").items() if v == vocabulary.free_dimension]
    left = [(w, at) for w, at in marks.left() if not is_plain(w, COMMON) and not (w.isdigit() and len(w) < 3)]
    if free in reading.arguments:  # a quoted name: "the product" before it is part of it
        left = [(w, at) for w, at in left if w not in cues]
    left = _excluded_name(marks, left, reading, vocabulary, original)
    heads = set(vocabulary.not_in_data) | {s.split()[0] for s in vocabulary.not_in_data}  # "stock"
    subjects = heads | {re.sub(r"s$", "", s) for s in heads}  # "forecast" for "forecasts"
    for word, _ in left:
        if word in subjects or subject_stem(word) in subjects:  # "profitable": no figures on profit
            reading.not_in_data.append(word if word in subjects else subject_stem(word))
    if reading.not_in_data or not left:
        return
    if len(left) > 1 and left[0][0] in cues:  # "tell me about product 85123A": the cue is no word of it
        left = left[1:]
    first = left[0][1]
    cued = any(
        re.search(rf"\b{re.escape(cue)}\s+(?:called\s+|named\s+)?$", marks.text[:first]) for cue in cues
    )
    code = len(left) == 1 and re.fullmatch(r"\d{4,6}[a-z]{1,2}|[a-z]\d{3,}", left[0][0])
    if free is not None and free not in reading.arguments and (cued or code or _named(left, original)):
        as_written = {w.lower(): w for w in re.findall(r"[A-Za-z0-9][\w'&+-]*", original)}
        # the name as written, small numbers inside it too ("REGENCY CAKESTAND 3 TIER")
        inside = marks.text[left[0][1] : left[-1][1] + len(left[-1][0])].split()
        words = {w for w, _ in left}
        names = [
            " ".join(
                as_written.get(w, w)
                for w in part
                if w in words or w.isdigit() or as_written.get(w, w)[:1].isupper()
            )
            for part in (
                split_names(inside, lambda w: as_written.get(w, w)) if vocabulary.free_list else [inside]
            )
        ]
        reading.arguments[free] = vocabulary.free_value([name for name in names if name] or [""])
        if vocabulary.free_dimension and reading.arguments.get("group_by") == vocabulary.free_dimension:
            del reading.arguments["group_by"]
        return
    # "the Champions segment": the dimension's noun after an unknown name only says what it was meant as
    dimensions = vocabulary.choices("group_by")
    nouns = [
        (w, at)
        for (prev, before_at), (w, at) in itertools.pairwise(left)
        if w in dimensions and before_at + len(prev) + 1 == at
    ]
    reading.not_understood = [w for w, at in left if (w, at) not in nouns]
    kinds = {singular(dimensions[w]) for w, _ in nouns} | {dimensions[w] for w, _ in nouns}
    reading.unknown_kind = next((p for p in vocabulary.entities if singular(p) in kinds), None)


def _named(left: list[tuple[str, int]], original: str) -> bool:
    """The words left are one name, capitalised as names are ("sales figures for Mexico", "the
    Lunch Bag Red"), not the question's first word: the tool looks it up and says if the data has none."""
    words = [w.rstrip(".") for w in re.findall(r"[A-Za-z0-9][\w'&.+-]*", original)]
    capitalised = {w.lower() for w in words[1:] if w[0].isupper()} - CALENDAR_NAMES
    return all(w in capitalised for w, _ in left) and len(left) <= 8


_NAME_JOINTS = frozenset({"and", "or", "&", ",", "vs", "versus"})


def split_names(words: list[str], written: Callable[[str], str] = str) -> list[list[str]]:
    """The words of several names, split where a comma or a lower-case "and", "or" or "versus"
    joins them ("lanterns, candles and bunting"); an upper-case one is a name's own ("SALT AND
    PEPPER SHAKERS"). ``written`` gives a word as the question wrote it."""
    names: list[list[str]] = [[]]
    for word in words:
        if word.lower() in _NAME_JOINTS and not written(word).isupper():
            if names[-1]:  # "a, and b": one joint
                names.append([])
        elif names[-1] or word.lower() not in ("the", "our"):  # "… and the party bunting"
            names[-1].append(word)
    return [name for name in names if name]


def _excluded_name(
    marks: Marks, left: list[tuple[str, int]], reading: Reading, vocabulary: Vocabulary, original: str
) -> list[tuple[str, int]]:
    """ "Top 5 products, ignoring postage": the words after an exclusion cue of the tool's free-text
    parameter (``exclude_product``) are the name it leaves out; the words left without them."""
    excluded = f"exclude_{vocabulary.free_text}"
    if excluded not in vocabulary.parameters or excluded in reading.arguments:
        return left
    for cue in sorted(vocabulary.cues.get(excluded, []), key=len, reverse=True):
        for found in re.finditer(rf"(?<![\w-]){re.escape(cue)}\s+(?:(?:the|all|any|our)\s+)?", marks.text):
            if not marks.free(*found.span()):
                continue
            runs = _runs_after(found.end(), left, marks, several=vocabulary.free_list)
            if not runs:
                continue
            as_written = {w.lower(): w for w in re.findall(r"[A-Za-z0-9][\w'&+-]*", original)}
            names = [" ".join(as_written.get(w, w) for w, _ in run) for run in runs]
            reading.arguments[excluded] = vocabulary.free_value(names)
            marks.take(found.start(), runs[-1][-1][1] + len(runs[-1][-1][0]))
            cue_words = {(m[0], found.start() + m.start()) for m in re.finditer(r"\S+", found[0])}
            taken = {item for run in runs for item in run} | cue_words
            return [item for item in left if item not in taken]
    return left


_JOINER = re.compile(r"(?:and|or|&) (?:(?:the|all|any|our) )?")


def _runs_after(
    at: int, left: list[tuple[str, int]], marks: Marks, *, several: bool
) -> list[list[tuple[str, int]]]:
    """The words left side by side from ``at`` on, a name; with ``several``, the next names too
    where "and" or "or" joins them ("excluding postage and manual")."""
    runs: list[list[tuple[str, int]]] = []
    while True:
        run: list[tuple[str, int]] = []
        for word, start in left:
            # "excluding regency cakestand 3 tier": a small number inside the name is the name's
            inside = re.match(r"(\d{1,2}) ", marks.text[at:])
            if run and inside and start == at + len(inside[0]) and marks.free(at, at + len(inside[1])):
                run.append((inside[1], at))
                at = start
            if start == at:
                run.append((word, start))
                at = start + len(word) + 1
        if not run:
            return runs
        runs.append(run)
        joined = _JOINER.match(marks.text, at)
        if not several or joined is None or not marks.free(*joined.span()):
            return runs
        at = joined.end()


def dangling_cues(marks: Marks, reading: Reading, vocabulary: Vocabulary) -> None:
    """An exclusion cue of common words ("other than") that left nothing out: read without it, the
    question would include what it asked to leave out, so the reading does not cover it."""
    for parameter, cues in vocabulary.cues.items():
        if not parameter.startswith("exclude_"):
            continue
        for word, id_parameter in vocabulary.ids.items():  # "everyone except customer 23160"
            if f"exclude_{id_parameter}s" in vocabulary.parameters or id_parameter not in reading.arguments:
                continue
            cue = either(cues)
            if left_out := re.search(
                rf"\b(?:{cue})\s+(?:the\s+)?{re.escape(word)}s?\b\D{{0,6}}\d+", marks.text
            ):
                del reading.arguments[id_parameter]
                reading.not_understood.append(left_out[0])
                return
        if parameter in reading.arguments:
            continue
        for cue in cues:
            if " " in cue and all(w in COMMON for w in cue.split()) and marks.find(cue):
                reading.not_understood.append(cue)
                return

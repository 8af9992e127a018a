"""Run an eval bank kept as a JSONL data file through the real app, and score its answers.

    uv run python bench/eval_bank.py                                  # the whole Superstore bank
    uv run python bench/eval_bank.py --limit 3 -v                     # 3 chats, failing turns shown
    uv run python bench/eval_bank.py --category follow_up --json /tmp/bank.json
    uv run python bench/eval_bank.py --data superstore=/work/evaldata/superstore/superstore.csv
    uv run python bench/eval_bank.py --rescore /tmp/bank.json         # score recorded answers again

A bank (``bench/eval/banks/*.jsonl``, shape in ``bench/eval/banks/README.md``) holds one chat a
line: ``{"chat", "dataset", "turns": [{"q", "category", "expect"}]}``. Options: ``--bank PATH``
(default ``superstore_blind.jsonl``), ``--data NAME=PATH`` (the file a bank's ``dataset`` value is
loaded from; ``superstore`` is ``/work/evaldata/superstore/superstore.cp1252.csv``, the original
Windows-1252 bytes, unless given), ``--limit N`` (the first N chats), ``--category C``
(repeatable: only the chats with a turn of C; only those turns are scored, the others are asked as
context), ``--model 0.5b|1.5b`` (the embedded model, ``0.5b`` by default as in
``eval_assistant.py``; not installed: skipped with a message), ``--json PATH`` (every turn: chat,
question, category, answer, the checks it failed, seconds, SSE error), ``-v`` (each failing turn
with its question and answer), ``--rescore PATH`` (the answers a ``--json`` file recorded, scored
again with the current checks against the current bank: no app, no model).

How it runs: a fresh ``AGENT_ORCHESTRATOR_HOME`` in a temporary directory (a small generated
version zero, so the app does not generate its full sample first), an admin made with the
``create-user --admin`` CLI, the app started as a real process (``AppProcess``: uvicorn, Copilot
CLI, MCP server, embedded model). The bank's data is then loaded the way an admin does it on the
Data page, over HTTP: the file uploaded (``POST /api/datasets/uploads``), the preview's suggested
mapping and format sent back as they are (nothing mapped or edited by hand), the import started
(``POST /api/datasets/imports``, replacing the data) and polled (``GET
/api/datasets/imports/current``) until it ends. A refused upload or import, or a failed job, prints
the server's message and exits 1: the runner never works around the importer. Each chat is then a
new session; its turns are POSTed in order to ``/api/sessions/{id}/messages`` and the SSE stream is
read to its ``done`` or ``error`` event.

What the figures mean. A turn passes when all its checks pass (an SSE error fails it); a turn
whose ``expect`` holds no check is asked but not scored. The verbatim question is cut out of the
answer first (an echo states nothing).

- ``numbers``: every expected number is stated at the precision the answer shows
  (``has_figure`` of ``eval_assistant.py``: 2297200.86 = 2,297,200.86 = 2.30 million = about
  2.3m, never more than 5 % off); a percent in the bank (12.34) may be written 12.34 %, 12.3 % or
  0.1234. The sign is not read (a loss of 1,234.56 states -1234.56). 0 is also stated by
  "zero", "none", "nothing" or "no <...> sales/orders/units...".
- ``names``: every name is in the answer, case-insensitive, whitespace normalised, as a whole word
  run (trailing ``?``/``.``/``!`` of a quoted question not needed). A date written "March 18, 2014"
  may also be 2014-03-18, "18 March 2014", "Mar 18th, 2014"; a month "November 2017" also "Nov 2017"
  or 2017-11; a quarter "Q4 2017" also "2017 Q4" or "Q4 of 2017".
- ``first``: of the expected names, the one named first in the answer is this one.
- ``decline``: the answer says the data cannot answer it (cannot / doesn't hold / no ... data /
  not in the data ...) and states no figure the question does not hold (years and list numbers
  are not figures).
- ``clarify``: the answer asks which one is meant (which ...?, do you mean, please specify ...)
  and names at least two of the candidates (``names``; for candidates that share words, the words
  that tell them apart are enough). ``names`` are then candidates, not all required.

The table gives pass/total and % per category and overall, and p50/p90 seconds per turn (nearest
rank, every turn asked). Expect a low score from the 0.5B model: the bank is held out, written
blind, and never to be tuned on.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from eval_assistant import (
    PASSWORD,
    USERNAME,
    Answer,
    AssistantClient,
    Route,
    embedded_route,
    has_figure,
    invented_figures,
    percentile,
)

ROOT = Path(__file__).resolve().parents[1]
BANKS_DIR = ROOT / "bench" / "eval" / "banks"
DEFAULT_BANK = BANKS_DIR / "superstore_blind.jsonl"
DEFAULT_DATA = {"superstore": Path("/work/evaldata/superstore/superstore.cp1252.csv")}
EXPECT_KEYS = frozenset({"numbers", "names", "first", "decline", "clarify", "note"})
IMPORT_TIMEOUT = 900.0
CHUNK = 1024 * 1024

# ------------------------------------------------------------------------------------------ bank


@dataclass(frozen=True)
class Expect:
    """What a right answer holds (bench/eval/banks/README.md)."""

    numbers: tuple[float, ...] = ()
    names: tuple[str, ...] = ()
    first: str | None = None
    decline: bool = False
    clarify: bool = False

    @property
    def checks(self) -> bool:
        return bool(self.numbers or self.names or self.first or self.decline or self.clarify)


@dataclass(frozen=True)
class BankTurn:
    q: str
    category: str
    expect: Expect


@dataclass(frozen=True)
class BankChat:
    chat: str
    dataset: str
    turns: tuple[BankTurn, ...]


def load_bank(path: Path) -> list[BankChat]:
    """The chats of a JSONL bank; an ``expect`` key this runner cannot check is an error, so that a
    new kind of truth is never silently passed."""
    chats = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        turns = []
        for t in raw["turns"]:
            e = t.get("expect", {})
            unknown = set(e) - EXPECT_KEYS
            if unknown:
                raise SystemExit(f"{path}:{n}: unknown expect keys {sorted(unknown)}")
            expect = Expect(
                numbers=tuple(float(x) for x in e.get("numbers", ())),
                names=tuple(str(x) for x in e.get("names", ())),
                first=e.get("first"),
                decline=bool(e.get("decline")),
                clarify=bool(e.get("clarify")),
            )
            turns.append(BankTurn(t["q"], t["category"], expect))
        chats.append(BankChat(str(raw["chat"]), str(raw["dataset"]), tuple(turns)))
    return chats


def select_chats(
    chats: list[BankChat], categories: Iterable[str] = (), limit: int | None = None
) -> list[BankChat]:
    """The chats with a turn of ``categories`` (all when none), the first ``limit`` of them."""
    wanted = set(categories)
    chosen = [c for c in chats if not wanted or any(t.category in wanted for t in c.turns)]
    return chosen if limit is None else chosen[:limit]


# --------------------------------------------------------------------------------------- scoring

_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_FULL_DATE = re.compile(r"([a-z]+) (\d{1,2}),? (\d{4})")
_MONTH_YEAR = re.compile(r"([a-z]+),? (\d{4})")
_QUARTER = re.compile(r"q([1-4]),? (\d{4})")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    """Lower case, typographic quotes made plain, every run of whitespace (NBSP too) one space."""
    return " ".join(text.translate(_QUOTES).lower().split())


def _month(word: str) -> int | None:
    return _MONTHS.index(word) + 1 if word in _MONTHS else None


def _month_words(month: int) -> str:
    name = _MONTHS[month - 1]
    return rf"(?:{name}|{name[:3]}\.?)" + ("|sept\\.?" if month == 9 else "")


def name_patterns(name: str) -> list[re.Pattern[str]]:
    """How ``name`` may be written in a normalised answer: as itself (a whole word run; a trailing
    ?, . or ! may be left out), and dates, months and quarters in their other usual forms."""
    wanted = normalise(name)
    literal = re.escape(wanted.rstrip("?.!") or wanted)
    forms = [literal]
    if m := _FULL_DATE.fullmatch(wanted):
        month = _month(m.group(1))
        if month:
            day = date(int(m.group(3)), month, int(m.group(2)))
            words, d = f"(?:{_month_words(month)})", rf"0?{day.day}(?:st|nd|rd|th)?"
            forms += [
                day.isoformat(),
                rf"{words} {d},? {day.year}",
                rf"{d} (?:of )?{words},? {day.year}",
            ]
    elif (m := _MONTH_YEAR.fullmatch(wanted)) and (month := _month(m.group(1))):
        year = m.group(2)
        forms += [rf"(?:{_month_words(month)}),? {year}", rf"{year}-{month:02d}(?!-\d)"]
    elif m := _QUARTER.fullmatch(wanted):
        quarter, year = m.groups()
        forms += [rf"{year}[ -]?q{quarter}", rf"q{quarter}(?: of|-| -)? ?{year}"]
    return [re.compile(rf"(?<!\w){form}(?!\w)") for form in forms]


def first_position(text: str, name: str) -> int | None:
    """Where ``name`` is first written in ``text`` (already normalised), None: not at all."""
    found = [m.start() for p in name_patterns(name) if (m := p.search(text))]
    return min(found) if found else None


_ZERO = re.compile(
    r"\b(?:zero|none|nothing|no (?:[\w-]+ ){0,3}(?:sales|orders?|revenue|units?|lines?|records?|"
    r"purchases?|transactions?|customers?|rows?))\b"
)


def states_number(answer: str, expected: float) -> bool:
    """``expected`` is stated at the precision shown, as a plain figure or as a percent (12.34 as
    12.34 % or 0.1234); 0 also as zero / none / no sales."""
    if has_figure(answer, expected) or has_figure(answer, expected / 100, percent=True):
        return True
    return expected == 0 and _ZERO.search(normalise(answer)) is not None


_DECLINE = re.compile(
    r"can(?:no|')?t\b|cannot|unable to|not able to|no way to|impossible to|"
    r"(?:do|does|did)(?: not|n't) (?:have|hold|contain|include|record|track|cover|store|keep|show|capture)|"
    r"(?:is|are|was|were)(?: not|n't) (?:available|recorded|tracked|included|stored|captured|part of|"
    r"in (?:the|this|our|your) (?:data|dataset|file|records))|"
    r"\bno (?:[\w-]+ ){0,3}(?:data|information|records?|columns?|fields?|details)\b|"
    r"not (?:in|part of|covered by|available in) (?:the|this|our|your) (?:data|dataset|file)|"
    r"there(?: is|'s) no|only (?:has|have|holds|contains|covers|includes|records)|beyond (?:the|this|what)"
)
_LIST_NUMBER = re.compile(r"^\s*\d{1,2}[.)]\s", re.MULTILINE)
_YEAR = re.compile(r"(?:19|20)\d\d")
_ASKS = re.compile(
    r"\bwhich\b[^.!\n]*\?|\b(?:do|did) you mean\b|\bplease (?:specify|clarify|confirm|choose|pick|select)\b|"
    r"\b(?:could|can|would) you (?:please )?(?:specify|clarify|confirm|tell me which|let me know which)\b|"
    r"\blet me know which\b|\b(?:are|were) you (?:asking|referring|thinking)\b|\bwhich one\b"
)


_SPAN_DATE = re.compile(rf"\b(?:{'|'.join(_MONTHS)}) \d{{1,2}}, \d{{4}}\b", re.IGNORECASE)


def stated_figures(answer: str, question: str, own: Iterable[str] = ()) -> list[str]:
    """Figures of ``answer`` that ``question`` does not hold: not years, not list numbers, not 0,
    not a day (a decline may say the data's span), not a figure of the file's own headers ("Tax 5%")."""
    text = _SPAN_DATE.sub(" ", _LIST_NUMBER.sub(" ", answer))
    kept = set(own)
    return [f for f in invented_figures(text, question) if not (_YEAR.fullmatch(f) or f.rstrip("%") in kept)]


def header_figures(path: Path) -> frozenset[str]:
    """The numbers written in a CSV file's header line: a decline that names a column says them."""
    with path.open(encoding="utf-8", errors="replace") as file:
        return frozenset(re.findall(r"\d+(?:\.\d+)?", file.readline()))


def candidate_named(text: str, name: str, candidates: Iterable[str]) -> bool:
    """``name`` is written in ``text`` (normalised), or, when candidates share words ("Ann Chand",
    "Raj Chand"), the words of it that no other candidate has."""
    if first_position(text, name) is not None:
        return True
    others = {w for c in candidates if normalise(c) != normalise(name) for w in normalise(c).split()}
    own = [w for w in normalise(name).split() if w not in others]
    if not own or len(own) == len(normalise(name).split()):
        return False
    return re.search(rf"(?<!\w){re.escape(' '.join(own))}(?!\w)", text) is not None


def score(answer: str, question: str, expect: Expect, own: Iterable[str] = ()) -> list[str]:
    """The checks ``answer`` fails (empty: it passes). The verbatim question is cut out first;
    ``own`` are the figures of the file's own headers."""
    if question.strip():
        answer = answer.replace(question.strip(), " ")
    text = normalise(answer)
    failed: list[str] = []
    missing = [x for x in expect.numbers if not states_number(answer, x)]
    if missing:
        failed.append("numbers: missing " + ", ".join(f"{x:,.2f}".removesuffix(".00") for x in missing))
    if expect.clarify:
        if not _ASKS.search(text):
            failed.append("clarify: does not ask which one is meant")
        named = [n for n in expect.names if candidate_named(text, n, expect.names)]
        if len(named) < 2:
            failed.append(f"clarify: names {len(named)} of the candidates {list(expect.names)}, needs 2")
    else:
        absent = [n for n in expect.names if first_position(text, n) is None]
        if absent:
            failed.append(f"names: missing {absent}")
    if expect.first:
        places = {n: first_position(text, n) for n in dict.fromkeys([*expect.names, expect.first])}
        at = {n: p for n, p in places.items() if p is not None}
        if expect.first not in at:
            failed.append(f"first: {expect.first!r} not named")
        else:
            before = [n for n, p in at.items() if p < at[expect.first]]
            if before:
                failed.append(f"first: {before[0]!r} named before {expect.first!r}")
    if expect.decline:
        if not _DECLINE.search(text):
            failed.append("decline: does not say the data cannot answer it")
        figures = stated_figures(answer, question, own)
        if figures:
            failed.append(f"decline: states figures {figures[:4]}")
    return failed


# -------------------------------------------------------------------------------------- results


@dataclass
class TurnResult:
    chat: str
    turn: int
    q: str
    category: str
    scored: bool
    answer: str
    failed: list[str]
    seconds: float
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.scored and not self.failed


def evaluate(
    chat: str, index: int, turn: BankTurn, answer: Answer, scored: bool, own: Iterable[str] = ()
) -> TurnResult:
    """One answer scored (``scored`` False: asked for its chat's sake only)."""
    failed = score(answer.text, turn.q, turn.expect, own) if scored else []
    if scored and answer.error:
        failed.insert(0, f"error: {answer.error}")
    return TurnResult(
        chat,
        index + 1,
        turn.q,
        turn.category,
        scored,
        answer.text,
        failed,
        round(answer.seconds, 2),
        answer.error,
    )


def is_scored(turn: BankTurn, categories: Iterable[str]) -> bool:
    wanted = set(categories)
    return turn.expect.checks and (not wanted or turn.category in wanted)


# ------------------------------------------------------------------------------------ the data


class DataRefused(Exception):
    """The server refused the upload or the import, or the import job failed: its one-line message."""


def server_message(response: httpx.Response) -> str:
    """The one-line error of an API answer: its ``detail`` (a validation error's messages joined)."""
    try:
        detail: Any = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = response.text
    if isinstance(detail, list):
        detail = "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', ())[1:])}: {d.get('msg')}"
            if isinstance(d, dict)
            else str(d)
            for d in detail
        )
    return f"HTTP {response.status_code}: {' '.join(str(detail).split())}"


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            yield chunk


def load_dataset(http: httpx.Client, path: Path) -> dict[str, Any]:
    """Upload ``path``, import it with the preview's suggested mapping and format as they are (replacing
    the data) and wait for the job: the job's report, or ``DataRefused``."""
    uploaded = http.post(
        "/api/datasets/uploads",
        params={"name": path.name},
        content=_chunks(path),
        headers={"Content-Type": "text/csv"},
    )
    if uploaded.status_code != 201:
        raise DataRefused(f"upload refused: {server_message(uploaded)}")
    preview = uploaded.json()
    mapped = {k: v for k, v in preview["mapping"].items() if v}
    print(f"  preview: mapping {mapped}, format {preview['format']}", flush=True)
    if preview.get("problems"):
        print(f"  preview problems: {preview['problems']}", flush=True)
    body = {"upload_id": preview["upload_id"], "mapping": preview["mapping"], "format": preview["format"]}
    started = http.post("/api/datasets/imports", json=body)
    if started.status_code != 202:
        raise DataRefused(f"import refused: {server_message(started)}")
    job = started.json()
    deadline = time.monotonic() + IMPORT_TIMEOUT
    while job["state"] == "running":
        if time.monotonic() > deadline:
            raise DataRefused(f"import still running after {IMPORT_TIMEOUT:.0f} s")
        time.sleep(0.5)
        job = http.get("/api/datasets/imports/current").json()["job"]
    if job["state"] != "finished":
        raise DataRefused(f"import {job['state']}: {' '.join(str(job.get('error')).split())}")
    return job["report"]


def _report_line(report: dict[str, Any]) -> str:
    return (
        f"imported {report['imported']:,} of {report['rows_read']:,} rows (skipped {report['skipped']:,} "
        f"{report['skipped_by_reason']}), {report['customers']:,} customers, {report['products']:,} "
        f"products, {report['first_date']}..{report['last_date']} in {report['seconds']:.1f} s"
    )


# ---------------------------------------------------------------------------------------- running


@dataclass
class Run:
    bank: str
    model: str | None
    route: str
    results: list[TurnResult]
    datasets: dict[str, str] = field(default_factory=dict)  # dataset -> the import's report line
    wall_seconds: float = 0.0


def prepare_home(home: Path, env: dict[str, str]) -> None:
    """A small version zero (the app would generate its full sample otherwise) and the admin."""
    from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

    generate_dataset(home / "retail.sqlite", GeneratorConfig(seed=7, customers=300, transactions=6_000))
    subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.web", "create-user", USERNAME, "--admin"],
        input=PASSWORD + "\n",
        text=True,
        env=env,
        check=True,
        capture_output=True,
    )


def run_bank(
    route: Route,
    bank: Path,
    chats: list[BankChat],
    data: dict[str, Path],
    categories: list[str],
    verbose: bool,
    home: Path,
) -> Run:
    """Start the app, load each dataset through the Data page's API, ask every chat in a new session.
    ``DataRefused`` (after the app is stopped) when a dataset cannot be loaded."""
    from agent_orchestrator.testing.app_process import AppProcess
    from agent_orchestrator.testing.environment import clean_environment

    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(home), **route.env)
    prepare_home(home, env)
    started = time.perf_counter()
    app = AppProcess(env, log=home / "app.log").start(timeout=600)
    client = AssistantClient(app.url)
    run = Run(str(bank), None, route.description, [])
    total = sum(len(c.turns) for c in chats)
    try:
        for chat in chats:
            if chat.dataset not in run.datasets:
                path = data[chat.dataset]
                print(f"loading {chat.dataset} from {path} through the Data page's API", flush=True)
                run.datasets[chat.dataset] = _report_line(load_dataset(client.http, path))
                print(f"  {run.datasets[chat.dataset]}", flush=True)
            session = client.new_session(f"eval bank: {chat.chat}")
            run.model = run.model or client.session_model(session)
            for i, turn in enumerate(chat.turns):
                answer = client.ask(session, turn.q)
                own = header_figures(data[chat.dataset])
                result = evaluate(chat.chat, i, turn, answer, is_scored(turn, categories), own)
                run.results.append(result)
                _progress(len(run.results), total, result, verbose)
    finally:
        client.close()
        app.stop()
    run.wall_seconds = round(time.perf_counter() - started, 1)
    return run


def _progress(n: int, total: int, r: TurnResult, verbose: bool) -> None:
    status = "PASS" if r.passed else ("FAIL" if r.scored else "ctx ")
    error = f"  error: {r.error}" if r.error else ""
    print(
        f"[{n:3}/{total}] {r.chat:10} t{r.turn} {r.category:17} {status} {r.seconds:6.1f}s{error}", flush=True
    )
    if verbose and r.scored and not r.passed:
        _print_failure(r)


def _print_failure(r: TurnResult) -> None:
    print(f"      Q: {r.q}", flush=True)
    print(f"      A: {' '.join(r.answer.split())[:800]}", flush=True)
    for failure in r.failed:
        print(f"      - {failure}", flush=True)


def rescore(path: Path, bank: Path | None, categories: list[str]) -> Run:
    """The answers a ``--json`` file recorded, scored with the current checks against the current bank
    (``bank``, else the one the file names). With ``categories``, only those turns are scored; else the
    turns scored when recorded."""
    recorded = json.loads(path.read_text())
    s = recorded["summary"]
    if bank is None:
        bank = Path(s["bank"]) if Path(s["bank"]).is_absolute() else ROOT / s["bank"]
    turns = {(c.chat, i + 1): t for c in load_bank(bank) for i, t in enumerate(c.turns)}
    run = Run(
        str(bank), s.get("model"), s.get("route", "?"), [], s.get("datasets", {}), s.get("wall_seconds", 0)
    )
    for t in recorded["turns"]:
        turn = turns.get((t["chat"], t["turn"]))
        if turn is None or turn.q != t["q"]:
            raise SystemExit(f"{path} was recorded on another bank: chat {t['chat']} turn {t['turn']}")
        scored = is_scored(turn, categories) if categories else bool(t["scored"])
        answer = Answer(t["answer"], t["seconds"], error=t.get("error"))
        run.results.append(evaluate(t["chat"], t["turn"] - 1, turn, answer, scored))
    return run


# ---------------------------------------------------------------------------------------- report


def summary(run: Run) -> dict[str, Any]:
    per: dict[str, list[bool]] = defaultdict(list)
    for r in run.results:
        if r.scored:
            per[r.category].append(r.passed)
    passed = [ok for oks in per.values() for ok in oks]
    times = [r.seconds for r in run.results]
    return {
        "bank": run.bank,
        "route": run.route,
        "model": run.model,
        "datasets": run.datasets,
        "categories": {c: {"passed": sum(per[c]), "total": len(per[c])} for c in sorted(per)},
        "passed": sum(passed),
        "scored": len(passed),
        "chats": len(dict.fromkeys(r.chat for r in run.results)),
        "turns": len(times),
        "errors": sum(1 for r in run.results if r.error),
        "p50_seconds": round(statistics.median(times), 2) if times else None,
        "p90_seconds": round(percentile(times, 0.9), 2) if times else None,
        "wall_seconds": run.wall_seconds,
    }


def print_report(s: dict[str, Any]) -> None:
    print(f"\nbank {s['bank']}: {s['chats']} chats, {s['turns']} turns; {s['route']}, model {s['model']}")
    for name, line in s["datasets"].items():
        print(f"dataset {name}: {line}")
    print(f"{'category':18} {'pass':>9} {'%':>5}")
    for name, c in s["categories"].items():
        print(f"{name:18} {c['passed']:4}/{c['total']:<4} {c['passed'] / c['total']:5.0%}")
    rate = s["passed"] / s["scored"] if s["scored"] else 0.0
    print(f"{'overall':18} {s['passed']:4}/{s['scored']:<4} {rate:5.0%}")
    if s["turns"]:
        print(
            f"seconds per turn: p50 {s['p50_seconds']:.1f}, p90 {s['p90_seconds']:.1f} over {s['turns']} "
            f"turns; errors {s['errors']}; wall {s['wall_seconds'] / 60:.1f} min"
        )


def report(run: Run, json_path: Path | None, verbose: bool = False) -> int:
    if verbose:
        for r in run.results:
            if r.scored and not r.passed:
                print(f"FAIL {r.chat} t{r.turn} [{r.category}]")
                _print_failure(r)
    s = summary(run)
    print_report(s)
    if json_path:
        turns = [{**asdict(r), "passed": r.passed} for r in run.results]
        json_path.write_text(json.dumps({"summary": s, "turns": turns}, indent=2, ensure_ascii=False))
        print(f"details: {json_path}")
    return 0


def parse_data(pairs: list[str]) -> dict[str, Path]:
    data = dict(DEFAULT_DATA)
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise SystemExit(f"--data takes NAME=PATH, not {pair!r}")
        data[name] = Path(path)
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", type=Path, default=None, help=f"a JSONL bank (default {DEFAULT_BANK.name})")
    parser.add_argument("--data", action="append", default=[], help="NAME=PATH: the file of a bank's dataset")
    parser.add_argument("--limit", type=int, default=None, help="at most N chats")
    parser.add_argument("--category", action="append", default=[], help="only chats with turns of it")
    parser.add_argument("--model", default="0.5b", choices=("0.5b", "1.5b"), help="embedded model")
    parser.add_argument("--json", type=Path, default=None, help="write every turn here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failing turn and answer")
    parser.add_argument("--rescore", type=Path, default=None, help="score a --json file's answers again")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the app is stopped too

    if args.rescore:
        return report(rescore(args.rescore, args.bank, args.category), args.json, args.verbose)
    bank = (args.bank or DEFAULT_BANK).resolve()
    chats = load_bank(bank)
    known = {t.category for c in chats for t in c.turns}
    if unknown := set(args.category) - known:
        raise SystemExit(f"unknown categories {sorted(unknown)}; the bank has {sorted(known)}")
    chats = select_chats(chats, args.category, args.limit)
    data = parse_data(args.data)
    for name in dict.fromkeys(c.dataset for c in chats):
        if name not in data:
            raise SystemExit(f"no file for dataset {name!r}: give --data {name}=PATH")
        if not data[name].is_file():
            raise SystemExit(f"dataset {name!r}: {data[name]} is not a file")
    route = embedded_route(args.model, None)
    if isinstance(route, str):
        print(f"skipped: {route}")
        return 0
    turns = sum(len(c.turns) for c in chats)
    print(f"route: {route.description}; bank {bank.name}: {len(chats)} chats, {turns} turns", flush=True)
    with tempfile.TemporaryDirectory(prefix="eval-bank-") as tmp:
        try:
            run = run_bank(route, bank, chats, data, args.category, args.verbose, Path(tmp))
        except DataRefused as refused:
            print(f"the dataset was not loaded: {refused}")
            return 1
    return report(run, args.json)


if __name__ == "__main__":
    sys.exit(main())

"""Replaying analysts' feedback as eval cases (``bench/eval_assistant.py --replay CASES.jsonl``).

An admin exports the rated answers of the app (``GET /api/admin/feedback``, docs/architecture.md#feedback):
one JSON object per line with the question, the answer, what its tools returned, the rating and the
note. Each question is asked again, in a chat of its own, through the real app:

- an answer rated **up** is a regression case: it passes when the new answer shows every figure the
  rated one showed (at the precision shown, as the eval's figure checks read them) and no error;
- an answer rated **down** has no truth to check against, only a complaint: it is reported as
  *changed* (the new answer's figures or words differ) or *unchanged* (the same answer, which the
  analyst said was wrong), with the analyst's note, for a person to read.

Replay on the data the feedback came from (``--dataset``): figures of another dataset would differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_assistant import AssistantClient, Route, figure_matches, prepare_home, shown_numbers


@dataclass(frozen=True)
class Case:
    question: str
    answer: str
    rating: str
    note: str


@dataclass(frozen=True)
class Replayed:
    case: Case
    answer: str
    error: str | None
    seconds: float
    missing: list[str]
    """For an up-rated case: the rated answer's figures the new one does not show."""

    @property
    def outcome(self) -> str:
        if self.case.rating == "up":
            return "pass" if not self.error and not self.missing else "fail"
        return "unchanged" if _same(self.answer, self.case.answer) else "changed"


def read_cases(path: Path) -> list[Case]:
    """The export's cases; a line that is not one is named and skipped, never a crash."""
    cases: list[Case] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data: dict[str, Any] = json.loads(line)
            cases.append(
                Case(str(data["question"]), str(data["answer"]), str(data["rating"]), str(data["note"]))
            )
        except (ValueError, KeyError, TypeError) as error:
            print(f"line {number}: not an eval case ({error}); skipped")
    return [case for case in cases if case.question.strip() and case.rating in ("up", "down")]


def missing_figures(rated: str, answer: str) -> list[str]:
    """The figures of the rated answer that the new answer does not show."""
    shown = shown_numbers(answer)
    return [
        f"{figure.value:g}"
        for figure in shown_numbers(rated)
        if not any(figure_matches(figure.value, again) for again in shown)
    ]


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def replay(cases: list[Case], route: Route, home: Path, seed: int, dataset: Path | None) -> list[Replayed]:
    from agent_orchestrator.testing.app_process import AppProcess
    from agent_orchestrator.testing.environment import clean_environment

    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(home), **route.env)
    prepare_home(home, seed, env, dataset)
    app = AppProcess(env).start(timeout=600)
    client = AssistantClient(app.url)
    done: list[Replayed] = []
    try:
        for number, case in enumerate(cases, 1):
            session_id = client.new_session(f"replay {number}")
            answer = client.ask(session_id, case.question)
            missing = missing_figures(case.answer, answer.text) if case.rating == "up" else []
            replayed = Replayed(case, answer.text, answer.error, answer.seconds, missing)
            done.append(replayed)
            print(
                f"[{number:3}/{len(cases)}] {case.rating:4} {replayed.outcome:9} {case.question[:70]}",
                flush=True,
            )
    finally:
        client.close()
        app.stop()
    return done


def report(done: list[Replayed], json_path: Path | None) -> int:
    up = [r for r in done if r.case.rating == "up"]
    down = [r for r in done if r.case.rating == "down"]
    passed = sum(r.outcome == "pass" for r in up)
    changed = sum(r.outcome == "changed" for r in down)
    print(f"\nrated up (regressions): {passed}/{len(up)} still give every figure they gave")
    for r in up:
        if r.outcome == "fail":
            print(f"  - {r.case.question!r}: {r.error or 'missing ' + ', '.join(r.missing)}")
    print(f"rated down (complaints): {changed}/{len(down)} now answered differently")
    for r in down:
        if r.outcome == "unchanged":
            print(f"  - still the same: {r.case.question!r} (note: {r.case.note or 'none'})")
    if json_path:
        rows = [
            {"question": r.case.question, "rating": r.case.rating, "note": r.case.note, "was": r.case.answer}
            | {"now": r.answer, "outcome": r.outcome, "missing": r.missing, "error": r.error}
            for r in done
        ]
        json_path.write_text(
            json.dumps({"up": [passed, len(up)], "down": [changed, len(down)], "cases": rows}, indent=2)
        )
        print(f"details: {json_path}")
    return 0

"""Replaying analysts' feedback as eval cases (``bench/eval_assistant.py --replay CASES.jsonl``).

An admin exports the rated answers of the app (``GET /api/admin/feedback``, docs/architecture.md#feedback):
one JSON object per line with the question, the answer, what its tools returned, the rating and the
note. Each question is asked again, in a chat of its own, through the real app:

- an answer rated **up** is a regression case: it passes when the new answer shows every figure the
  rated one showed (at the precision shown, as the eval's figure checks read them), every figure it
  shows agrees with what the rated answer stood on -- a number its tools returned (a value, a number
  in their text, how many rows a list held), one the tools were asked for, or one the question or
  the rated answer showed -- and no error. A figure that agrees with none is reported as
  *unsupported*: the data changed since the rating, or the model made it up or worked it out anew;
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

from eval_assistant import AssistantClient, Route, Shown, figure_matches, prepare_home, shown_numbers


@dataclass(frozen=True)
class Case:
    question: str
    answer: str
    rating: str
    note: str
    tool_results: tuple[dict[str, Any], ...] = ()
    """What the rated answer's tools were asked and returned, as exported: ``tool``, ``arguments``
    and ``content`` (the tool's text, JSON for the retail tools)."""


@dataclass(frozen=True)
class Replayed:
    case: Case
    answer: str
    error: str | None
    seconds: float
    missing: list[str]
    """For an up-rated case: the rated answer's figures the new one does not show."""
    unsupported: list[str]
    """For an up-rated case: the new answer's figures that agree with nothing the rated one stood on."""

    @property
    def outcome(self) -> str:
        if self.case.rating == "up":
            return "pass" if not self.error and not self.missing and not self.unsupported else "fail"
        return "unchanged" if _same(self.answer, self.case.answer) else "changed"


def read_cases(path: Path) -> list[Case]:
    """The export's cases; a line that is not one is named and skipped, never a crash."""
    cases: list[Case] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data: dict[str, Any] = json.loads(line)
            results = data.get("tool_results", [])  # a case written by hand may leave them out
            if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
                raise TypeError("tool_results is not a list of objects")
            cases.append(
                Case(
                    str(data["question"]),
                    str(data["answer"]),
                    str(data["rating"]),
                    str(data["note"]),
                    tuple(results),
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            print(f"line {number}: not an eval case ({error}); skipped")
    return [case for case in cases if case.question.strip() and case.rating in ("up", "down")]


def missing_figures(rated: str, answer: str) -> list[str]:
    """The figures of the rated answer that the new answer does not show."""
    shown = shown_numbers(answer)
    return [
        _figure(figure)
        for figure in shown_numbers(rated)
        if not any(figure_matches(figure.value, again) for again in shown)
    ]


def unsupported_figures(case: Case, answer: str) -> list[str]:
    """The figures of the new answer that agree with none the rated answer stood on (see the module's
    docstring): a percentage may stand on a share (0.31 for 31 %) or on a number of percent."""
    known = recorded_figures(case)
    unsupported = []
    for figure in shown_numbers(answer):
        candidates = [v for k in known for v in (k, k / 100)] if figure.percent else known
        if not any(figure_matches(value, figure) for value in candidates):
            unsupported.append(_figure(figure))
    return unsupported


def recorded_figures(case: Case) -> list[float]:
    """Every figure the rated answer could stand on: its tools' arguments and results (their values,
    the numbers in their texts, the length of each list), the question's and its own."""
    figures = [shown.value for text in (case.question, case.answer) for shown in shown_numbers(text)]
    for result in case.tool_results:
        figures += _numbers(result.get("arguments", {}))
        content = str(result.get("content", ""))
        try:
            figures += _numbers(json.loads(content))
        except ValueError:  # a tool's plain text
            figures += [shown.value for shown in shown_numbers(content)]
    return figures


def _numbers(value: object) -> list[float]:
    """The numbers in a JSON value, at any depth; a list also counts its items ("the top 5")."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, str):
        return [shown.value for shown in shown_numbers(value)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [float(len(value))] + [n for item in value for n in _numbers(item)]
    return []


def _figure(figure: Shown) -> str:
    """A figure for the report: its value in full (7777777, not 7.77778e+06), a percentage as one."""
    return f"{figure.value * 100:.12g}%" if figure.percent else f"{figure.value:.12g}"


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
            up = case.rating == "up"
            missing = missing_figures(case.answer, answer.text) if up else []
            unsupported = unsupported_figures(case, answer.text) if up else []
            replayed = Replayed(case, answer.text, answer.error, answer.seconds, missing, unsupported)
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
    print(
        f"\nrated up (regressions): {passed}/{len(up)} still give every figure they gave, "
        "and only figures their tools returned"
    )
    for r in up:
        if r.outcome == "fail":
            print(f"  - {r.case.question!r}: {r.error or _failure(r)}")
    print(f"rated down (complaints): {changed}/{len(down)} now answered differently")
    for r in down:
        if r.outcome == "unchanged":
            print(f"  - still the same: {r.case.question!r} (note: {r.case.note or 'none'})")
    if json_path:
        rows = [
            {"question": r.case.question, "rating": r.case.rating, "note": r.case.note, "was": r.case.answer}
            | {"now": r.answer, "outcome": r.outcome, "missing": r.missing, "unsupported": r.unsupported}
            | {"error": r.error}
            for r in done
        ]
        json_path.write_text(
            json.dumps({"up": [passed, len(up)], "down": [changed, len(down)], "cases": rows}, indent=2)
        )
        print(f"details: {json_path}")
    return 0


def _failure(replayed: Replayed) -> str:
    """Why an up-rated case failed, in the report's words."""
    reasons = [f"missing {', '.join(replayed.missing)}"] if replayed.missing else []
    if replayed.unsupported:
        reasons.append(f"unsupported {', '.join(replayed.unsupported)}")
    return "; ".join(reasons)

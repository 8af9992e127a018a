"""The JSONL bank runner's scorer (bench/eval_bank.py) on hand-written answers: numbers at the shown
precision and as percents, names with their date forms, the first of a ranking, declines and
clarifying questions; and a bank file's parsing and chat selection. No app, no model."""

import importlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
eb = importlib.import_module("eval_bank")
Expect = eb.Expect


@pytest.mark.parametrize(
    ("answer", "expect", "failed"),
    [
        ("Revenue was $1,234,567.89.", Expect(numbers=(1234567.89,)), []),
        ("Revenue was about 1.23 million.", Expect(numbers=(1234567.89,)), []),
        ("Revenue was 1,300,000.", Expect(numbers=(1234567.89,)), ["numbers: missing 1,234,567.89"]),
        ("Margin: 12.3%, a loss of 456.70 on 8 orders", Expect(numbers=(12.34, -456.7, 8)), []),
        ("It had no sales that year.", Expect(numbers=(0,)), []),
        (
            "The top city is Gotham, then Metropolis.",
            Expect(names=("metropolis", "Gotham"), first="Gotham"),
            [],
        ),
        (
            "Metropolis leads; Gotham is second.",
            Expect(names=("Gotham", "Metropolis"), first="Gotham"),
            ["first: 'Metropolis' named before 'Gotham'"],
        ),
        ("The Northwestern branch", Expect(names=("West",)), ["names: missing ['West']"]),
        ("The best day was 2015-07-04.", Expect(names=("July 4, 2015",)), []),
        ("The best day was 4 July 2015.", Expect(names=("July 4, 2015",)), []),
        ("The best day was Jul 4th, 2015.", Expect(names=("July 4, 2015",)), []),
        (
            "The best day was July 4, 2016.",
            Expect(names=("July 4, 2015",)),
            ["names: missing ['July 4, 2015']"],
        ),
        ("The peak month was 2016-02 and then Q3 of 2016.", Expect(names=("February 2016", "Q3 2016")), []),
        (
            "You asked: \u201chow big is  the\u00a0West region\u201d",
            Expect(names=("How big is the West region?",)),
            [],
        ),
        (
            "I can't answer that from this data: it holds no weather information.",
            Expect(decline=True),
            [],
        ),
        (
            "I can't answer that from this data, but 2016 revenue was 98,765.43.",
            Expect(decline=True),
            ["decline: states figures ['98,765.43']"],
        ),
        (
            "Sales were 98,765.43 in 2016.",
            Expect(decline=True),
            ["decline: does not say the data cannot answer it", "decline: states figures ['98,765.43']"],
        ),
        (
            "There are three: Ann Lee, Raj Lee and Bo Lee. Which one do you mean?",
            Expect(clarify=True, names=("Ann Lee", "Raj Lee", "Bo Lee")),
            [],
        ),
        ("Did you mean Ann or Raj Lee?", Expect(clarify=True, names=("Ann Lee", "Raj Lee", "Bo Lee")), []),
        (
            "Ann Lee spent 1,234.00.",
            Expect(clarify=True, names=("Ann Lee", "Raj Lee", "Bo Lee")),
            [
                "clarify: does not ask which one is meant",
                "clarify: names 1 of the candidates ['Ann Lee', 'Raj Lee', 'Bo Lee'], needs 2",
            ],
        ),
    ],
)
def test_score(answer: str, expect: object, failed: list[str]) -> None:
    assert eb.score(answer, "a question", expect) == failed


def test_an_echoed_question_states_nothing() -> None:
    question = "Did revenue pass 5,000 in Gotham?"
    assert eb.score(f"{question} I don't know.", question, Expect(numbers=(5000,), names=("Gotham",))) == [
        "numbers: missing 5,000",
        "names: missing ['Gotham']",
    ]


def test_a_bank_file_is_read_and_its_chats_selected(tmp_path: Path) -> None:
    lines = [
        {
            "chat": "c1",
            "dataset": "shop",
            "turns": [{"q": "a?", "category": "x", "expect": {"numbers": [1]}}],
        },
        {
            "chat": "c2",
            "dataset": "shop",
            "turns": [
                {"q": "b?", "category": "x", "expect": {"names": ["B"], "note": "why"}},
                {"q": "c?", "category": "y", "expect": {"decline": True}},
            ],
        },
    ]
    bank = tmp_path / "bank.jsonl"
    bank.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    chats = eb.load_bank(bank)
    assert [c.chat for c in eb.select_chats(chats, ["y"])] == ["c2"]
    assert [c.chat for c in eb.select_chats(chats, [], limit=1)] == ["c1"]
    assert chats[1].turns[1].expect == Expect(decline=True)
    assert [eb.is_scored(t, ["y"]) for t in chats[1].turns] == [False, True]

    bank.write_text(json.dumps({**lines[0], "turns": [{"q": "a?", "category": "x", "expect": {"odd": 1}}]}))
    with pytest.raises(SystemExit, match="unknown expect keys"):
        eb.load_bank(bank)

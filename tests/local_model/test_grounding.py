"""Every id, name, date and figure in an answer must come from the conversation (the grounding check)."""

import json

import pytest

from agent_orchestrator.local_model.grounding import Sources, has_claims, unsupported_claims

RESULT = json.dumps(
    {
        "segment": "At Risk",
        "customers": 2489,
        "share": 0.4523,
        "revenue": 1234567.89,
        "top": [{"id": 20017, "country": "Germany", "product": "WHITE HANGING HEART T-LIGHT HOLDER"}],
        "last_purchase": "2024-03-15",
    }
)
SOURCES = Sources.of([RESULT, "Who are the At Risk customers in Germany? Show the top 3."])


@pytest.mark.parametrize(
    "answer",
    [
        "The At Risk segment has 2,489 customers.",
        "At Risk customers are 45% of the base (45.23% exactly).",
        "They brought in 1,234,567.89, about 1.23 million.",
        "Customer 20017 from Germany last bought on 2024-03-15.",
        "Their favourite is the WHITE HANGING HEART T-LIGHT HOLDER.",
        "Here are the top 3:\n1. Customer 20017\n2. ...",  # list numbers and the user's own 3
        "The only customer listed is 20017.",  # 1 is the list's length
    ],
)
def test_grounded_answers_pass(answer: str) -> None:
    assert unsupported_claims(answer, SOURCES) == []


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        ("Florian Osteral and Wooden Spaceboy Toy are At Risk.", "Florian Osteral"),
        ("How many customers? 10.", "10"),
        ("The segment has 2,500 customers.", "2,500"),
        ("Customer 99999 is High Value.", "99999"),
        ("Most of them live in France.", "France"),
        ("They bought the RED RETROSPOT MUG.", "RED RETROSPOT MUG"),
        ("Last order on 2024-03-16.", "2024-03-16"),
        ("That is 52% of revenue.", "52%"),
        ("They brought in $1,234,567.89.", "$"),  # a currency the evidence never names
    ],
)
def test_invented_claims_are_named(answer: str, claim: str) -> None:
    assert any(claim in found for found in unsupported_claims(answer, SOURCES))


def test_an_answer_without_claims_is_told_apart() -> None:
    assert not has_claims("I could not find it.")
    assert has_claims("Customer 20017 is At Risk.")


def test_a_currency_sign_is_supported_only_where_the_evidence_shows_it() -> None:
    result = {"answer": "Revenue, 2011: £187,137.48."}
    for priced in (Sources.of([json.dumps(result)]), Sources.of([json.dumps(result, ensure_ascii=False)])):
        assert unsupported_claims("Revenue in 2011 was £187,137.48.", priced) == []
    assert unsupported_claims("Revenue in 2011 was €187,137.48.", priced) == ["€"]

"""The answer-quality eval's own logic, on canned answers: number matching, entity checks, invented-entity
detection, turn planning, SSE parsing, the SQL oracle against the app's stored segments; and one short
end-to-end run through the real app on the scripted model (plumbing: sessions, SSE, tools, restart)."""

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.testing.scripted_model import Reply, ScriptedModel, Text, ToolCall, user_messages

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
ea = importlib.import_module("eval_assistant")
q = importlib.import_module("eval_assistant_questions")


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        (2489, "There are 2,489 At Risk customers."),
        (2489, "about 2,500 customers"),
        (2489, "2489"),
        (2489, "2,490"),
        (1234.5, "They spent £1,234.50."),
        (1234.5, "roughly £1.2k"),
        (1234.5, "£1,234"),
        (1234.5, "£1,235"),
        (1234567, "about 1.23 million"),
        (1234567, "£1.2M"),
        (16869, "16,869 units"),
        (218608.88, "$21,8608.88"),  # misplaced separator, right digits
    ],
)
def test_figures_match_at_the_precision_the_answer_shows(expected: float, answer: str) -> None:
    assert ea.has_figure(answer, expected)


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        (2489, "about 2,000 customers"),  # 20 % off
        (2489, "2,498 customers, or 2,400"),  # neither is 2,489 at the shown precision
        (1234.5, "£1,300"),
        (1234567, "about 1 million"),
        (12, "as of 2025-12-31"),  # a date is not a figure
        (45, "45%"),  # a percentage is not a count
    ],
)
def test_figures_that_do_not_match(expected: float, answer: str) -> None:
    assert not ea.has_figure(answer, expected)


@pytest.mark.parametrize(
    ("answer", "ok"),
    [("45.2%", True), ("45%", True), ("0.45", True), ("45 per cent", True), ("46%", False), ("45 of", False)],
)
def test_percentages(answer: str, ok: bool) -> None:
    assert ea.has_figure(answer, 0.4523, percent=True) is ok


def test_entities_are_matched_in_their_usual_spellings() -> None:
    assert ea.names_customer("Customer 20,345 leads", "20345")
    assert ea.names_customer("#20345.", "20345")
    assert not ea.names_customer("id 120345", "20345")
    assert ea.names_country("Most revenue comes from the UK.", "United Kingdom")
    assert not ea.names_country("a quick check", "United Kingdom")
    assert ea.names_product("The Pink Love Shopper Bag sold best", "PINK LOVE SHOPPER BAG")
    assert ea.segments_named("They are in the At-Risk segment") == {"At Risk"}
    assert ea.segments_named("Our New York office") == set()
    assert ea.segments_named("mostly new customers and Regular ones") == {"New", "Regular"}
    assert ea.months_named("The best month was Nov 2025, ahead of 2025-12. You may see") == [11, 12]
    assert ea.names_date("Their last order was on March 4th, 2025.", "2025-03-04")
    assert ea.names_date("last purchase: 2025-03-04", "2025-03-04")
    assert not ea.names_date("on 14 March 2025", "2025-03-04")


def test_checks_combine() -> None:
    segment = (q.Names("segment", "segment", ("Regular",)), q.OnlySegments(("Regular", "High Value")))
    no = q.YesNo(False, "High Value")
    answer = "No, 23540 is Regular, not High Value."
    assert ea.check_failures(answer, (*segment, no), "Is 23540 High Value?") == []
    assert ea.check_failures("Yes, 23540 is High Value.", (*segment, no), "") != []
    assert ea.check_failures("It is Regular or maybe At Risk.", segment, "") == ["also names ['At Risk']"]
    asked = "Would a customer with 4 orders be High Value?"
    yes = (q.Names("segment", "segment", ("High Value",)), q.YesNo(True, "High Value"))
    assert ea.check_failures(f"You asked: {asked}", yes, asked) != []  # an echo is no answer
    assert ea.check_failures("Yes, they would be High Value.", yes, asked) == []
    members = q.IdsIn("At Risk in Germany", frozenset({20033, 20169, 20184}), 2)
    either = q.AnyOf("list or count", (members, q.Num("count", (137,))))
    assert ea.check_failures("Customers 20033 and 20169.", (either,), "") == []
    assert ea.check_failures("There are 137 of them.", (either,), "") == []
    assert ea.check_failures("Customers 20033 and 24999.", (members,), "") != []
    best = q.Names("best month", "month", ("2025-11",))
    assert ea.check_failures("November 2025 was strongest, then December.", (best,), "") == []
    assert ea.check_failures("December was above October but November was best.", (best,), "") != []
    weakest = q.Names("weakest month", "month", ("2011-12", "2011-04"))  # the partial month or a full one
    assert ea.check_failures("April 2011: 426,047.85. December is only in part.", (weakest,), "") == []
    assert ea.check_failures("December 2011 was the weakest.", (weakest,), "") == []
    assert ea.check_failures("February 2011, then April.", (weakest,), "") == [
        "weakest month: expected December or April named first"
    ]
    opened = "Revenue, highest month, 2025, excluding December 2025: November 2025: 301,771.09."
    assert ea.check_failures(opened, (best,), "") == []  # the reading names the month left out
    ranked = "Revenue, top 12 months, 2025:\n1. November 2025: 264,895.28\n2. December 2025: 242,758.82"
    assert ea.check_failures(ranked, (best,), "") == []


@pytest.mark.parametrize(
    ("entity", "answer", "ok"),
    [
        ("99999999", "I couldn't find customer 99999999 in the data.", True),
        ("99999999", "There is no customer with id 99999999.", True),
        ("Thailand", "We have 0 customers in Thailand.", True),
        (
            "Thailand",
            "I could not find that in the data: no customer with id 99999999.",
            False,
        ),  # about another
        ("99999999", "Customer 99999999 is in the High Value segment.", False),
        ("99999999", "Customer 99999999 has spent £1,234.", False),
        ("99999999", "Customer 99999999 was not found; they spent £40.", False),
    ],
)
def test_unknown_entities_pass_only_when_not_found_and_nothing_is_made_up(
    entity: str, answer: str, ok: bool
) -> None:
    said = "What segment is customer 99999999 in?\nHow many customers do we have in Thailand?"
    assert (ea.unknown_entity_failure(answer, said, entity) is None) is ok


def test_an_answer_repeated_word_for_word_fails() -> None:
    turn = q.Turn(
        "Which segment are we targeting?", "memory_restart", (q.Names("s", "segment", ("Regular",)),)
    )
    planned = ea.Planned(0, 3, turn, scored=True, restart=False)
    answer = ea.Answer("The budget is £12,500 and the segment is Regular.", 1.0)
    chat = q.Chat("c", (turn,))
    vocab = _vocab()
    assert ea.evaluate(planned, chat, answer, vocab, turn.text, []).passed
    assert not ea.evaluate(planned, chat, answer, vocab, turn.text, [(answer.text, ["the budget"])]).passed
    # the same answer to a question that expected the same (asked again in other words) is right
    same = [(answer.text, [ea.describe(c) for c in turn.checks])]
    assert ea.evaluate(planned, chat, answer, vocab, turn.text, same).passed


def test_the_same_quote_of_the_user_may_answer_two_questions() -> None:
    said = "I'm preparing the Q3 review for the Regular team. Which team is it for? Which segment is it?"
    turn = q.Turn("Which segment is it?", "memory", (q.Names("s", "segment", ("Regular",)),))
    planned = ea.Planned(0, 3, turn, scored=True, restart=False)
    answer = ea.Answer('You told me: "I\'m preparing the Q3 review for the Regular team"', 1.0)
    chat = q.Chat("c", (turn,))

    assert ea.evaluate(planned, chat, answer, _vocab(), said, [(answer.text, ["the team"])]).passed


def _vocab() -> Any:
    products = ["PINK LOVE SHOPPER BAG", "RED KITCHEN CANDLE", "HEART BIRD PHOTO FRAME", "RED ROSE MUG"]
    return ea.Vocabulary.of(range(20001, 25001), ["United Kingdom", "Germany"], products)


def test_invented_entities_are_found_and_listed() -> None:
    answer = (
        "Top customer is 99999 (customer id), then 20001. Best sellers: PINK LOVE SHOPPER BAG, "
        "the Pink Coffee Mug and Red Kitchen Candle. Revenue was 123456 in Argentina and Germany.\n"
        "| 26000 | Germany | 1,200 |"
    )
    invented = ea.invented_entities(answer, "Who buys most?", _vocab())
    assert invented == [
        "customer 99999",
        "customer 26000",
        "product 'PINK COFFEE MUG'",
        "country 'Argentina'",
    ]


def test_only_numbers_presented_as_customer_ids_count_as_ids() -> None:
    text = (
        "The top customer by revenue is 23160, then customers 21624, 21136 and 99998.\n"
        '- 20555 (Germany)\n| 20777 | France |\n{"customer_id": 20999}\n**Customer ID:** 20888\n'
        "- orders: 12224\n- units: 637107\n  - id: 77612, invoice: 722191, customer: 23735, qty: 3\n"
        "Revenue was 123456 and 2304913.2; Customer 20111 (Germany) and 20222."
    )
    assert ea.mentioned_customer_ids(text) == [
        23160,
        21624,
        21136,
        99998,
        20555,
        20777,
        20999,
        20888,
        23735,
        20111,
    ]


def test_products_in_sentence_case_and_plural_are_recognised() -> None:
    vocab = _vocab()
    answer = "Best sellers: Pink love shopper bags, then Red rose candle; the red kitchen candle is fine."
    assert ea.mentioned_products(answer, vocab) == ["PINK LOVE SHOPPER BAG", "RED ROSE CANDLE"]
    assert ea.invented_entities(answer, "Best sellers?", vocab) == ["product 'RED ROSE CANDLE'"]
    assert ea.names_product("Pink love shopper bags sold best", "PINK LOVE SHOPPER BAG")


def test_what_the_question_named_or_plain_words_are_not_inventions() -> None:
    vocab = _vocab()
    answer = "Customer 99999999 does not exist, and we have no customers in Argentina. Data Set A."
    assert ea.invented_entities(answer, "Is customer 99999999 in Argentina?", vocab) == []
    answer = "I found no sales of the GREEN LOVE SHOPPER BAG; the Love Shopper Bag range sells well."
    assert ea.invented_entities(answer, "How is the GREEN LOVE SHOPPER BAG selling?", vocab) == []
    said = "How many customers in Mexico?\nAnd customer 25239?"
    assert ea.invented_entities("No data on Mexico or customer 25239.", said, vocab) == []
    unknown = q.NotFound("99999999")
    assert ea.unknown_entity_inventions("It is At Risk.", "What segment is customer 99999999?", unknown) == [
        "segment ['At Risk'] for unknown 99999999"
    ]


def test_plan_brings_context_for_follow_ups_and_caps_scored_questions() -> None:
    chats = [
        q.Chat("a", (q.Turn("one", "lookup"), q.Turn("two", "aggregate"))),
        q.Chat(
            "b",
            (
                q.Turn("fact", None),
                q.Turn("lookup", "lookup"),
                q.Turn("recall", "memory_restart", needs_previous=True, restart_before=True),
            ),
        ),
    ]
    plan = ea.plan_turns(chats, ["memory_restart"])
    assert [(p.turn.text, p.scored, p.restart) for p in plan] == [
        ("fact", False, False),
        ("lookup", False, False),
        ("recall", True, True),
    ]
    assert [p.turn.text for p in ea.plan_turns(chats, limit=2)] == ["one", "two"]
    assert [p.turn.text for p in ea.plan_turns(chats, ["lookup"], limit=5)] == ["one", "lookup"]


def test_sse_stream_is_read_to_done() -> None:
    lines = [
        "event: tool",
        'data: {"call_id": "1", "name": "retail-x", "status": "started"}',
        "",
        "event: delta",
        'data: {"text": "Hel"}',
        "",
        "event: done",
        'data: {"content": "Hello", "html": "<p>Hello</p>"}',
        "",
    ]
    answer = ea.AssistantClient._read_stream(lines, started=0.0)
    assert (answer.text, answer.tools, answer.error) == ("Hello", ["retail-x"], None)
    failed = ea.AssistantClient._read_stream(["event: error", 'data: {"message": "boom"}', ""], started=0.0)
    assert failed.error == "boom"


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("retail") / "retail.sqlite"
    return generate_dataset(path, GeneratorConfig(customers=600, transactions=12_000, products=300))


def test_the_oracle_agrees_with_the_stored_segments_and_the_bank_is_complete(small_dataset: Path) -> None:
    oracle = q.load_oracle(small_dataset)
    assert oracle.stored_segment_mismatches == 0
    assert len(oracle.customers) == 600 and oracle.as_of.isoformat() == "2025-12-31"
    chats = q.build_chats(oracle, seed=7)
    counts = q.count_categories(chats)
    assert set(counts) == set(q.CATEGORIES) and sum(counts.values()) >= 60
    assert all(2 <= len(chat.turns) <= 5 for chat in chats)
    assert any(t.restart_before for chat in chats for t in chat.turns)
    assert q.build_chats(oracle, seed=7) == chats  # parameters are reproducible


def _tool_then_recall(body: dict[str, Any]) -> Reply:
    """A segment question calls an offered tool first; anything else quotes the first user message."""
    messages = body.get("messages", [])
    if messages and messages[-1].get("role") == "tool":
        return Text("I looked it up.")
    users = user_messages(body)
    tools = [t["function"]["name"] for t in body.get("tools", [])]
    if tools and "segment" in users[-1].lower():
        return ToolCall(next((n for n in tools if "segment" in n), tools[0]), {})
    return Text(f'To "{users[-1]}": you said earlier "{users[0]}"')


@pytest.mark.slow  # the real app and its Copilot CLI, restarted once
def test_a_short_run_through_the_real_app(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedModel(default=_tool_then_recall) as model:
        route = ea.provider_route(model.base_url, "scripted-model")
        run = ea.run_eval(route, 42, ["memory_restart"], 2, verbose=False, home=tmp_path)
    results = run.results
    assert [r.category for r in results] == ["context", "context", "memory_restart", "memory_restart"]
    assert run.restarts == 1 and results[2].after_restart
    assert results[1].tools and not results[0].tools  # the segment question used a tool
    assert [r.passed for r in results[2:]] == [True, True]  # history survived the restart
    assert all(r.error is None for r in results)
    summary = ea.summary(run)
    assert summary["model"] == "scripted-model" and summary["invented_entities"] == 0
    assert summary["categories"] == {"memory_restart": {"passed": 2, "total": 2}}


@pytest.mark.slow  # the real app and its Copilot CLI
def test_rated_answers_are_asked_again_through_the_real_app(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--replay``: an up-rated answer must give its figures again; a down-rated one is reported as
    changed or unchanged, with the analyst's note."""
    replay = importlib.import_module("eval_replay")
    cases = [
        replay.Case("How much revenue in May?", "Revenue in May was 1,234.50.", "up", ""),
        replay.Case("Which product sold best?", "Red Mug.", "down", "It was the Blue Mug"),
        replay.Case("And in June?", "Revenue in May was 1,234.50.", "down", "That is May"),
    ]
    with ScriptedModel(default=lambda body: Text("Revenue in May was 1,234.50.")) as model:
        route = ea.provider_route(model.base_url, "scripted-model")
        done = replay.replay(cases, route, tmp_path / "home", 42, None)
    assert [r.outcome for r in done] == ["pass", "changed", "unchanged"]
    replay.report(done, tmp_path / "replayed.json")
    out = capsys.readouterr().out
    assert "rated up (regressions): 1/1 still give every figure they gave" in out
    assert "rated down (complaints): 1/2 now answered differently" in out
    assert "still the same: 'And in June?' (note: That is May)" in out

"""The server decides whether a request calls a tool, and narrows what the call may say."""

import json

import pytest
from tool_fixtures import COUNTRIES, RETAIL_TOOLS, SEGMENTS, answered, optional, tool, user

from agent_orchestrator.local_model.chat_format import normalize_messages
from agent_orchestrator.local_model.grounding import Sources, unsupported_claims
from agent_orchestrator.local_model.tool_arguments import Mentions, narrow_tool
from agent_orchestrator.local_model.tool_policy import CALL_PREFIX, ToolPolicy
from agent_orchestrator.local_model.tool_ranking import ToolRanker
from agent_orchestrator.mcp_server.lexicon import RETAIL

SYSTEM = {"role": "system", "content": "You are a retail assistant."}


def plan(*messages, tools=RETAIL_TOOLS, tool_choice=None):
    """The plan the retail app's server makes: with the retail tools' words."""
    return ToolPolicy(lexicon=RETAIL).plan(normalize_messages([SYSTEM, *messages]), tools, tool_choice)


def names(tools) -> list[str]:
    return [t["function"]["name"].rsplit("-", 1)[-1] for t in tools]


@pytest.mark.parametrize(
    ("question", "best"),
    [
        ("Who are our top customers in Germany?", "top_customers"),
        ("How many customers are in each segment?", "list_segments"),
        ("Show the monthly revenue trend", "monthly_trend"),
        ("What is customer 12345's segment?", "get_customer_summary"),
    ],
)
def test_ranking_puts_the_tool_that_shares_the_question_words_first(question: str, best: str) -> None:
    assert names([t for _, t in ToolRanker(RETAIL_TOOLS).rank(question)])[0] == best


def test_a_data_question_must_call_one_of_a_few_ranked_tools() -> None:
    p = plan(user("Who are our top customers in Germany?"))
    assert p.mode == "call"
    assert 1 <= len(p.tools) <= 3 and names(p.tools)[0] == "top_customers"
    assert p.grammar and "retail-analytics-top_customers" in p.grammar
    # The tool block sits right before the question: the history before it stays a cached prefix.
    assert p.messages[-2]["role"] == "system" and "<tools>" in p.messages[-2]["content"]
    assert p.messages[-1]["content"].endswith("Who are our top customers in Germany?")
    assert CALL_PREFIX.startswith("<tool_call>")


def test_arguments_are_narrowed_to_what_the_user_said() -> None:
    p = plan(user("Who are our top customers in Germany?"))
    top = p.tools[0]["function"]["parameters"]["properties"]
    assert top["country"]["enum"] == ["Germany"]
    assert "segment" not in top  # no segment was named: the model cannot add one
    assert "limit" not in top  # no number was given: the tool's default applies


def narrowed(tool: dict, said: str) -> dict | None:
    found = narrow_tool(tool, Mentions.of([said], RETAIL))
    return None if found is None else found.tool["function"]["parameters"]["properties"]


def test_an_id_parameter_only_takes_a_number_the_user_gave_as_an_id() -> None:
    assert narrowed(RETAIL_TOOLS[0], "Tell me about customer 20017 and the top 3")["customer_id"]["enum"] == [
        20017
    ]
    assert narrowed(RETAIL_TOOLS[0], "Who is our best customer?") is None  # no id: not callable
    assert narrowed(RETAIL_TOOLS[0], "Revenue in March 2024 of the top 5") is None  # a year is not an id


def test_durations_become_days_and_periods_become_dates() -> None:
    mentions = Mentions.of(["Customers idle for 6 months, revenue in March 2024 and Q3 2025, or 2023"])
    assert [q.value for q in mentions.days] == [180]
    assert mentions.starts == ("2024-03", "2025-07", "2023")
    assert mentions.ends == ("2024-03", "2025-09", "2023")
    trend = narrowed(RETAIL_TOOLS[3], "Revenue trend for the last 12 months")
    assert trend["months"]["enum"] == [12]


def test_a_year_earlier_moves_the_periods_named_back_a_year() -> None:
    follow_up = Mentions.of(
        [
            "How many orders did we get in April 2025?",
            "How does that compare with the same month a year earlier?",
        ]
    )
    assert (follow_up.starts, follow_up.ends) == (("2024-04",), ("2024-04",))
    both = Mentions.of(["Compare Q2 2025 with the previous year"])
    assert (both.starts, both.ends) == (("2025-04", "2024-04"), ("2025-06", "2024-06"))


def test_free_text_only_takes_what_the_user_wrote() -> None:
    assert Mentions.of(['Sales of "heart holder" and the WHITE MUG in March']).phrases == (
        "heart holder",
        "WHITE MUG",
    )


@pytest.mark.parametrize(
    "message",
    [
        "hello",
        "Thanks, that helps.",
        "My focus today is the At Risk segment.",  # a statement: nothing to look up
        "Which segment did I say I was focused on?",  # the conversation, not the data
    ],
)
def test_conversation_without_a_data_question_gets_no_tools(message: str) -> None:
    p = plan(user(message))
    assert p.mode == "chat" and p.grammar is None
    assert "<tools>" not in json.dumps(p.messages)


def test_a_short_follow_up_of_a_tool_turn_calls_again() -> None:
    first = answered(
        "Top customers in Germany?", "retail-analytics-top_customers", '{"country": "Germany"}', "{}"
    )
    p = plan(*first, {"role": "assistant", "content": "Customer 1 leads."}, user("and France?"))
    assert p.mode == "call"
    assert names(p.tools)[0] == "top_customers"  # the tool of the question it follows
    assert p.tools[0]["function"]["parameters"]["properties"]["country"]["enum"] == ["France"]


def test_a_follow_up_takes_what_it_leaves_open_from_the_question_before() -> None:
    first = answered(
        "Who are the At Risk customers in Germany?",
        "retail-analytics-top_customers",
        '{"segment": "At Risk", "country": "Germany"}',
        "{}",
    )
    p = plan(
        *first, {"role": "assistant", "content": "Customer 1."}, user("What about the High Value ones there?")
    )
    properties = p.tools[0]["function"]["parameters"]["properties"]
    assert names(p.tools)[0] == "top_customers"
    assert (properties["segment"]["enum"], properties["country"]["enum"]) == (["High Value"], ["Germany"])


def test_a_comparison_with_an_earlier_period_looks_the_data_up_with_the_previous_question() -> None:
    first = answered(
        "Monthly revenue of the At Risk segment?",
        "retail-analytics-monthly_trend",
        '{"segment": "At Risk"}',
        "{}",
    )
    later = "How does that compare with the same month a year earlier?"
    p = plan(*first, {"role": "assistant", "content": "It fell."}, user(later))
    assert p.mode == "call"
    assert p.tools[0]["function"]["parameters"]["properties"]["segment"]["enum"] == ["At Risk"]


def test_a_period_the_user_named_rules_out_tools_that_cannot_take_one() -> None:
    customers = tool(
        "find_customers",
        "Customers filtered by segment or country, how many customers match, sorted.",
        {"country": {**optional("string", "Country"), "enum": COUNTRIES}},
        [],
    )
    sales = tool(
        "sales_summary",
        "Revenue, orders and buyers over a period.",
        {"date_from": optional("string", "First month"), "date_to": optional("string", "Last month")},
        [],
    )
    p = plan(user("How many different customers bought something in March 2024?"), tools=[customers, sales])
    assert p.mode == "call" and names(p.tools) == ["sales_summary"]
    assert names(plan(user("How many customers are in France?"), tools=[customers, sales]).tools)[0] == (
        "find_customers"
    )


def test_a_combination_of_names_rules_out_tools_that_take_fewer_of_them() -> None:
    p = plan(user("How many Regular customers do we have in the United Kingdom?"))
    assert p.mode == "call" and names(p.tools) == ["top_customers"]  # not the segment overview
    assert "list_segments" in names(plan(user("How many customers are in each segment?")).tools)


def test_an_id_the_user_called_a_customers_fills_no_transaction_id() -> None:
    transaction = tool(
        "get_transaction",
        "One transaction by its id.",
        {"transaction_id": {"type": "integer", "minimum": 1, "description": "Transaction id"}},
        ["transaction_id"],
    )
    words = RETAIL.for_tools([transaction])
    assert (
        narrow_tool(transaction, Mentions.of(["Show me the transactions of customer 22952"], words)) is None
    )
    found = narrow_tool(transaction, Mentions.of(["What was in transaction 536365?"], words))
    assert found is not None
    assert found.tool["function"]["parameters"]["properties"]["transaction_id"]["enum"] == [536365]


def test_a_bound_is_no_window_and_counts_as_a_condition() -> None:
    trend = next(t for t in RETAIL_TOOLS if names([t]) == ["monthly_trend"])
    inactive = Mentions.of(["Customers in France who haven't ordered in 6 months"])
    assert narrowed(trend, "Revenue for the last 6 months")["months"]["enum"] == [6]
    assert (
        "months"
        not in (narrow_tool(trend, inactive) or pytest.fail()).tool["function"]["parameters"]["properties"]
    )
    customers = tool(
        "find_customers",
        "Customers by country and how long since they last ordered.",
        {
            "country": {**optional("string", "Country"), "enum": COUNTRIES},
            "min_recency_days": optional("integer", "Last order at least this many days ago"),
            "min_revenue": optional("number", "Net revenue at least"),
            "max_revenue": optional("number", "Net revenue up to"),
        },
        [],
    )
    assert (narrow_tool(customers, inactive) or pytest.fail()).named == 2
    # "top 5 … by revenue" is no bound on revenue, however the model might fill min/max with it.
    top = Mentions.of(["List our top 5 customers by net revenue."])
    assert (narrow_tool(customers, top) or pytest.fail()).named == 0


PREDICT = tool(
    "predict_segment",
    "Which segment a customer with these numbers would be in.",
    {
        "recency_days": {"type": "integer", "minimum": 0, "description": "Days since last order"},
        "frequency": {"type": "integer", "minimum": 1, "description": "Number of orders"},
        "monetary": {"type": "number", "description": "Net spend"},
    },
    ["recency_days", "frequency", "monetary"],
)


def test_a_what_if_question_naming_a_segment_goes_to_the_what_if_tool() -> None:
    customers = tool(
        "find_customers",
        "Customers by segment, orders and days since their last order.",
        {
            "segment": {**optional("string", "Segment"), "enum": SEGMENTS},
            "max_recency_days": optional("integer", "Last order within this many days"),
            "min_orders": optional("integer", "Orders at least"),
        },
        [],
    )
    question = "Would a customer with 8 orders, last order 17 days ago, spending £1,900 be High Value?"
    assert names(plan(user(question), tools=[customers, PREDICT]).tools) == ["predict_segment"]


def test_values_the_user_named_must_be_applied() -> None:
    top = next(t for t in RETAIL_TOOLS if names([t]) == ["top_customers"])
    found = narrow_tool(top, Mentions.of(["The Regular customers in the United Kingdom?"]))
    assert found is not None
    assert set(found.tool["function"]["parameters"]["required"]) == {"segment", "country"}


def test_a_what_if_follow_up_takes_the_numbers_it_leaves_open_and_reads_number_words() -> None:
    first = answered(
        "Which segment would a customer with 5 orders, the last 20 days ago, spending £900 be in?",
        "retail-analytics-predict_segment",
        '{"recency_days": 20, "frequency": 5, "monetary": 900}',
        "{}",
    )
    later = user("What about someone with a single order placed 10 days ago, spending £250?")
    p = plan(*first, {"role": "assistant", "content": "Regular."}, later, tools=[PREDICT])
    properties = p.tools[0]["function"]["parameters"]["properties"]
    assert (properties["frequency"]["enum"], properties["recency_days"]["enum"]) == ([1], [10])
    assert properties["monetary"]["enum"] == [250]


def test_tool_results_in_the_turn_mean_answer_without_tools() -> None:
    p = plan(*answered("How many segments?", "retail-analytics-list_segments", "{}", '{"segments": 4}'))
    assert p.mode == "answer" and p.grammar is None
    assert p.turn_results[0].tool == "list_segments" and p.turn_results[0].error is None
    assert not any(m.get("tool_calls") for m in p.messages)  # own answered call folded away
    assert '{"segments": 4}' in p.sources


def test_a_failed_tool_is_reported_as_an_error() -> None:
    failure = (
        "MCP server 'retail-analytics': Error executing tool get_customer_summary: no customer with id 9"
    )
    p = plan(*answered("Customer 9?", "retail-analytics-get_customer_summary", '{"customer_id": 9}', failure))
    assert p.errors == ["no customer with id 9"]


def test_tool_choice_none_and_required_are_honoured() -> None:
    assert plan(user("Top customers?"), tool_choice="none").mode == "chat"
    assert plan(user("hello"), tool_choice="required").mode == "call"


def test_a_keyword_choice_is_taken_from_the_words_people_use_for_it() -> None:
    products = tool(
        "top_products",
        "Best-selling products",
        {
            "sort_by": {
                "type": "string",
                "enum": ["revenue", "quantity"],
                "description": "Rank by revenue or units sold",
            }
        },
        [],
    )
    assert narrowed(products, "Best sellers in France?")["sort_by"]["enum"] == ["quantity"]
    assert narrowed(products, "Which products sold the most units?")["sort_by"]["enum"] == ["quantity"]
    assert narrowed(products, "Top products by sales?")["sort_by"]["enum"] == ["revenue"]
    assert narrowed(products, "Best-selling products by revenue?")["sort_by"]["enum"] == ["revenue"]
    # Words for both choices: the model picks between them, and cannot invent a third.
    assert narrowed(products, "Products with many units but little money?")["sort_by"]["enum"] == [
        "revenue",
        "quantity",
    ]
    assert "sort_by" not in narrowed(products, "Our top products?")


def test_what_the_user_told_is_recalled_in_their_words() -> None:
    p = plan(user("My name is Priya."), {"role": "assistant", "content": "Noted."}, user("What is my name?"))
    assert p.mode == "chat" and p.reply == 'You told me: "My name is Priya."'


@pytest.mark.parametrize("tool_choice", [None, "none"])
def test_the_conversation_is_quoted_when_no_tool_may_be_called(tool_choice) -> None:
    """Lab 05's session offers no tools: its memory question is still answered in the user's words,
    and a statement recalled; anything else is the model's."""
    told = [
        user("Remember this: my favourite retail segment is 'At Risk'. Reply with just OK."),
        {"role": "assistant", "content": "OK."},
    ]
    p = plan(
        *told, user("Which retail segment did I say was my favourite?"), tools=[], tool_choice=tool_choice
    )
    assert p.mode == "chat" and p.reply == "You said: \"my favourite retail segment is 'At Risk'\""
    p = plan(*told, user("What is my favourite segment?"), tools=[], tool_choice=tool_choice)
    assert p.reply == "You told me: \"my favourite retail segment is 'At Risk'\""
    assert plan(*told, user("Tell me a joke about shops."), tools=[], tool_choice=tool_choice).reply is None


def test_the_model_does_not_see_fixed_replies_it_would_repeat() -> None:
    p = plan(
        user("My name is Priya."), {"role": "assistant", "content": "Noted."}, user("Why did you say that?")
    )
    assert p.mode == "chat" and p.reply is None
    assert [m["role"] for m in p.messages] == ["system", "user", "user"]


# --- the evidence an answer is checked against: this turn's, and what the question refers back to ---

CUSTOMER_TURN = [
    *answered(
        "What is customer 20017's revenue?",
        "retail-analytics-get_customer_summary",
        '{"customer_id": 20017}',
        json.dumps({"id": 20017, "segment": "Regular", "revenue": 1441.68}),
    ),
    {"role": "assistant", "content": "Customer 20017 has a revenue of 1,441.68."},
]
SEGMENTS_RESULT = json.dumps({"segments": [{"segment": "High Value", "revenue": 2332509.07}]})


def unsupported(p, answer: str) -> list[str]:
    return unsupported_claims(answer, Sources.of(p.sources), p.terms)


def test_an_earlier_turns_customer_is_no_evidence_for_an_unrelated_answer() -> None:
    p = plan(
        *CUSTOMER_TURN,
        *answered(
            "Which segment brings the most revenue?", "retail-analytics-list_segments", "{}", SEGMENTS_RESULT
        ),
    )
    assert p.mode == "answer"
    assert unsupported(p, "Customer 20017 brings the most revenue.") == ["20017"]
    assert unsupported(p, "The High Value Customers bring 2,332,509.07.") == []  # "Customers" is a term


def test_a_follow_up_may_state_the_turn_it_leans_on_and_this_turns_calls() -> None:
    orders = json.dumps({"orders": 12})
    that = plan(*CUSTOMER_TURN, *answered("How many orders was that?", "retail-analytics-x", "{}", orders))
    assert unsupported(that, "Customer 20017 placed 12 orders.") == []
    p = plan(
        *CUSTOMER_TURN,
        *answered("And their orders?", "retail-analytics-top_customers", '{"limit": 3}', orders),
    )
    assert unsupported(p, "Customer 20017, with revenue 1,441.68, placed 12 orders (top 3).") == []


def test_a_question_about_the_conversation_may_state_the_conversation() -> None:
    p = plan(*CUSTOMER_TURN, user("What did you tell me about that customer before?"))
    assert p.mode == "chat" and unsupported(p, "I told you customer 20017 has a revenue of 1,441.68.") == []
    unrelated = plan(*CUSTOMER_TURN, user("Tell me a joke about accountants."))
    assert unsupported(unrelated, "Customer 20017 walks into a bar.") == ["20017"]


def test_the_clients_system_message_is_evidence() -> None:
    p = plan(user("Who are you, really?"))
    assert unsupported(p, "I am a Retail assistant.") == []  # SYSTEM: "You are a retail assistant."

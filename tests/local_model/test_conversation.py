"""Questions about the conversation itself are answered from the request's own messages, by code.

Each family with several phrasings: the user's questions by position, the assistant's answers by
position or topic, the things the chat was about, what the user stated. Data follow-ups stay data
questions, and a chat without what is asked about says so.
"""

import json
from typing import Any

import pytest
from tool_fixtures import RETAIL_TOOLS, answered, tool, user

from agent_orchestrator.local_model.chat_format import normalize_messages
from agent_orchestrator.local_model.chat_kinds import Kinds
from agent_orchestrator.local_model.conversation import ChatReply, answer, is_about_the_chat, recall
from agent_orchestrator.local_model.tool_policy import ToolPolicy
from agent_orchestrator.mcp_server.lexicon import RETAIL

SYSTEM = {"role": "system", "content": "You are a retail assistant."}
TRANSACTION = tool(
    "get_transaction",
    "One transaction",
    {"transaction_id": {"type": "integer", "description": "Transaction id"}},
    ["transaction_id"],
)
KINDS = Kinds.of(RETAIL_TOOLS, RETAIL.for_tools(RETAIL_TOOLS))

TOP_FRANCE = json.dumps(
    {
        "headline": "The top customers by revenue in France are customer 12347 and customer 12350.",
        "customers": [
            {"id": 12347, "country": "France", "segment": "High Value", "revenue": 4310.0},
            {"id": 12350, "country": "France", "segment": "Regular", "revenue": 1757.55},
        ],
    }
)
SUMMARY = json.dumps({"id": 12350, "segment": "Regular", "country": "France", "revenue": 1757.55})
TREND = json.dumps(
    {"months": [{"month": "2024-01", "revenue": 1000.0}, {"month": "2024-02", "revenue": 1200.0}]}
)
CHAT = [
    user("Hi! I'm Priya and I look after our French accounts."),
    {"role": "assistant", "content": "Noted."},
    *answered(
        "Who are our top customers in France?",
        "retail-analytics-top_customers",
        '{"country": "France"}',
        TOP_FRANCE,
        "c1",
    ),
    {"role": "assistant", "content": "The top customers in France are customer 12347 and customer 12350."},
    *answered(
        "What is that second one's segment?",
        "retail-analytics-get_customer_summary",
        '{"customer_id": 12350}',
        SUMMARY,
        "c2",
    ),
    {"role": "assistant", "content": "Customer 12350 is in the Regular segment."},
    *answered(
        "Monthly revenue for January and February 2024?",
        "retail-analytics-monthly_trend",
        '{"months": 2}',
        TREND,
        "c3",
    ),
    {"role": "assistant", "content": "Revenue was 1,000.00 in January 2024 and 1,200.00 in February 2024."},
]
QUESTIONS = (
    "Who are our top customers in France?",
    "What is that second one's segment?",
    "Monthly revenue for January and February 2024?",
)
ANSWERS = (
    "The top customers in France are customer 12347 and customer 12350.",
    "Customer 12350 is in the Regular segment.",
    "Revenue was 1,000.00 in January 2024 and 1,200.00 in February 2024.",
)


def reply(question: str, chat=CHAT, kinds: Kinds = KINDS) -> str | None:
    """The reply by code to ``question`` asked after ``chat``; fails when it is no question about the chat."""
    found = answer(normalize_messages([SYSTEM, *chat, user(question)]), kinds)
    assert found is not None, f"not read as a question about the chat: {question!r}"
    return found.text


# --- the user's own questions, by position ---


@pytest.mark.parametrize(
    ("question", "which", "quoted"),
    [
        ("What did I ask first?", "first", QUESTIONS[0]),
        ("What was the very first question I asked you here?", "first", QUESTIONS[0]),
        ("what was my first question?", "first", QUESTIONS[0]),
        ("Which question did I start with?", "first", QUESTIONS[0]),
        ("What was my second question?", "second", QUESTIONS[1]),
        ("remind me what I asked two questions ago", "second", QUESTIONS[1]),
        ("What did I ask the question before last?", "second", QUESTIONS[1]),
        ("what did I just ask?", "last", QUESTIONS[2]),
        ("Sorry, what was my previous question?", "last", QUESTIONS[2]),
        ("What was my last question?", "last", QUESTIONS[2]),
        ("What question did I ask before this one?", "last", QUESTIONS[2]),
        ("Can you remind me of my first question?", "first", QUESTIONS[0]),
    ],
)
def test_the_users_questions_are_quoted_by_position(question: str, which: str, quoted: str) -> None:
    assert reply(question) == f'Your {which} question was: "{quoted}"'


def test_a_statement_is_no_question_but_is_something_the_user_said() -> None:
    assert reply("What was the first thing I said?") == (
        'Your first message was: "Hi! I\'m Priya and I look after our French accounts."'
    )


def test_every_question_so_far_is_listed_in_order() -> None:
    assert reply("What have I asked so far?") == (
        "Your questions in this chat, in order:\n"
        + "\n".join(f'{n}. "{q}"' for n, q in enumerate(QUESTIONS, 1))
    )


def test_a_question_out_of_range_is_said_to_be_missing() -> None:
    assert reply("What was my fifth question?") == (
        "There is no fifth question of yours in this chat: you have sent 3 questions so far."
    )


# --- the assistant's answers, by position or topic ---


@pytest.mark.parametrize(
    ("question", "which", "at"),
    [
        ("repeat your second answer", "second answer", 1),
        ("Can you repeat your first answer?", "first answer", 0),
        ("What was your last response?", "last answer", 2),
        ("what did you just say?", "last reply", 2),
        ("What did you say before that?", "second reply", 1),
        ("What did you answer two answers ago?", "second answer", 1),
        ("What was the answer to my first question?", "first answer", 0),
        ("sorry, what was the first number you gave me?", "first answer", 0),
        ("What was the second figure you gave me?", "second answer", 1),
        ("what did you tell me at the start of the chat?", "first reply", 0),
    ],
)
def test_the_assistants_answers_are_quoted_by_position(question: str, which: str, at: int) -> None:
    assert reply(question, CHAT[2:]) == f'My {which} (to "{QUESTIONS[at]}") was: "{ANSWERS[at]}"'


def test_before_that_steps_back_from_the_one_quoted_last() -> None:
    quoted = [*CHAT, user("What was your third answer?"), {"role": "assistant", "content": "…"}]
    assert reply("And before that?", quoted) == f'My second answer (to "{QUESTIONS[1]}") was: "{ANSWERS[1]}"'
    # every reply counted, "Noted." too: the same one, the third of them
    assert reply("what did you tell me before that?", quoted).startswith(
        f'My third reply (to "{QUESTIONS[1]}")'
    )
    assert reply("And after that?", quoted) == 'My last answer (to "What was your third answer?") was: "…"'


def test_a_reply_to_a_greeting_is_no_answer_but_is_something_said() -> None:
    greeted = [user("hello"), {"role": "assistant", "content": "Hello! Ask me about customers."}, *CHAT[2:]]
    assert reply("What was your first answer?", greeted).startswith(f'My first answer (to "{QUESTIONS[0]}")')
    assert reply("What was the first thing you said?", greeted) == (
        'My first reply (to "hello") was: "Hello! Ask me about customers."'
    )


@pytest.mark.parametrize(
    ("question", "at"),
    [
        ("What figure did you give me for revenue earlier?", 2),
        ("what was your answer about the segment?", 1),
        ("What did you tell me about the top customers?", 0),
        ("Which revenue figure did you mention for February 2024?", 2),
        ("What was the February 2024 revenue again?", 2),
        ("what was customer 12350's segment again?", 1),
        ("sorry, what was the February 2024 revenue again?", 2),
    ],
)
def test_an_answer_is_found_by_what_it_was_about(question: str, at: int) -> None:
    assert reply(question) == f'When you asked "{QUESTIONS[at]}", I answered: "{ANSWERS[at]}"'


def test_the_last_turn_is_what_we_were_discussing() -> None:
    assert reply("What were we discussing?") == f'You asked: "{QUESTIONS[2]}", and I answered: "{ANSWERS[2]}"'


def test_a_tool_call_is_no_answer() -> None:
    calling = [*answered("Top customers?", "retail-analytics-top_customers", "{}", TOP_FRANCE)]
    assert (
        reply("What was your first answer?", calling) == "I haven't answered anything earlier in this chat."
    )


def test_nothing_said_about_a_topic_is_said_plainly() -> None:
    assert (
        reply("What did you tell me about Germany?") == "I haven't said anything about germany in this chat."
    )


# --- the things the chat was about ---


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which customer did I ask about first in this chat?",
            f'The first customer you asked about was customer 12350 (you asked: "{QUESTIONS[1]}").',
        ),
        (
            "sorry, which customer are we talking about again?",
            f'The customer we talked about was customer 12350 (you asked: "{QUESTIONS[1]}").',
        ),
        (
            "Which customers did you mention?",
            "The customers I mentioned were customer 12347 and customer 12350.",
        ),
        (
            "which country were we talking about?",
            f'The country we talked about was France (you asked: "{QUESTIONS[0]}").',
        ),
        (
            "What was the segment of customer 12350 again?",
            f'The segment we talked about was Regular (in my answer to "{QUESTIONS[1]}").',
        ),
        (
            "What segment did you say that customer was in?",
            f'The segment I mentioned was Regular (in my answer to "{QUESTIONS[1]}").',
        ),
        (
            "Which months did we talk about?",
            "The months we talked about were January 2024 and February 2024.",
        ),
        (
            "Which year did I ask about?",
            f'The year you asked about was 2024 (you asked: "{QUESTIONS[2]}").',
        ),
        (
            "Which client did I ask about first?",
            f'The first client you asked about was customer 12350 (you asked: "{QUESTIONS[1]}").',
        ),
    ],
)
def test_the_things_the_chat_was_about_are_found_in_its_questions_calls_and_answers(
    question: str, expected: str
) -> None:
    assert reply(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "which country did I look at?",
        "which country did I check?",
        "which country have we looked at so far?",
        "which country did we end up looking at?",
        "remind me which country we're on",
        "which country are we looking at?",
    ],
)
def test_looking_at_or_checking_something_is_talking_about_it(question: str) -> None:
    assert reply(question).startswith("The country ")
    assert "France" in reply(question)


def test_your_list_is_one_of_the_answers() -> None:
    assert reply("remind me, which country topped your top-5 list?").startswith("The country I mentioned was")


@pytest.mark.parametrize(
    "question",
    [
        "which customer was fourth on that list you gave me?",
        "and the second one in your list?",
        "which customer did you say was #1?",
    ],
)
def test_a_place_on_a_list_is_a_row_of_the_data_answered_there(question: str) -> None:
    assert answer(normalize_messages([SYSTEM, *CHAT, user(question)]), KINDS) is None


def test_a_revenue_figure_at_the_start_of_a_year_is_a_data_question() -> None:
    assert (
        answer(normalize_messages([SYSTEM, *CHAT, user("what was revenue at the start of 2024?")]), KINDS)
        is None
    )


def _query_tool(filter_shape: dict[str, Any]) -> dict[str, Any]:
    """A typed query tool whose filters take one column, shaped as ``filter_shape``."""
    filters = {"type": "array", "items": {"anyOf": [{"type": "object", **filter_shape}]}}
    return tool("query_data", "Any question on the dataset's own columns", {"filters": filters}, [])


def test_a_name_asked_short_is_told_in_full_as_it_was_looked_up() -> None:
    query = _query_tool(
        {
            "properties": {
                "column": {"const": "pizza_name"},
                "values": {
                    "type": "array",
                    "items": {"enum": ["The Classic Deluxe Pizza", "The Greek Pizza"]},
                },
            }
        }
    )
    chat = [
        *answered(
            "what % of total revenue did the Classic Deluxe make up?",
            "retail-analytics-query_data",
            '{"filters": [{"column": "pizza_name", "op": "in", "values": ["The Classic Deluxe Pizza"]}]}',
            json.dumps({"rows": [{"revenue": 38180.5}]}),
        ),
        {
            "role": "assistant",
            "content": "Revenue, The Classic Deluxe Pizza: 38,180.50 (4.67% of the total).",
        },
    ]
    assert reply("which pizza did I ask about at the start?", chat, Kinds.of([query], RETAIL)).startswith(
        "The first pizza you asked about was The Classic Deluxe Pizza (you asked"
    )


def test_a_typed_querys_columns_and_values_are_kinds_before_any_call_used_them() -> None:
    query = _query_tool(
        {
            "properties": {
                "column": {"const": "region"},
                "values": {"type": "array", "items": {"enum": ["East", "West"]}},
            }
        }
    )
    kinds = Kinds.of([query], RETAIL)
    chat = [
        user("total profit in the West in 2015"),
        {"role": "assistant", "content": "I can't answer that."},
        user("and East?"),
        {"role": "assistant", "content": "I can't answer that."},
    ]
    assert reply("which two regions have we looked at so far?", chat, kinds) == (
        "The regions we talked about were West and East."
    )


def test_a_name_is_known_from_the_tables_the_chat_got_back_however_it_was_typed() -> None:
    """A dataset's own columns and names: no tool schema lists them, the results do."""
    query = tool("query_data", "Query the data", {"filters": {"type": "array"}}, [])
    rows = json.dumps(
        {
            "rows": [
                {"customer_name": "Maria Lopez", "sales": 912.5},
                {"customer_name": "Ken Adams", "sales": 48.0},
            ]
        }
    )
    one = json.dumps({"rows": [{"customer_name": "Ken Adams", "orders": 3}]})
    chat = [
        *answered("top 2 customers by sales", "retail-analytics-query_data", "{}", rows, "q1"),
        {"role": "assistant", "content": "1. Maria Lopez: 912.50\n2. Ken Adams: 48.00"},
        *answered(
            "how many orders did ken adams place?",
            "retail-analytics-query_data",
            '{"filters": [{"column": "customer_name", "op": "in", "values": ["Ken Adams"]}]}',
            one,
            "q2",
        ),
        {"role": "assistant", "content": "Ken Adams placed 3 orders."},
    ]
    kinds = Kinds.of([query], RETAIL)
    assert reply("sorry, which customer are we talking about again?", chat, kinds) == (
        'The customer we talked about was Ken Adams (you asked: "how many orders did ken adams place?").'
    )
    assert reply("Which customers did you mention?", chat, kinds) == (
        "The customers I mentioned were Maria Lopez and Ken Adams."
    )


def test_a_kind_nothing_was_said_about_is_said_plainly() -> None:
    assert reply("Which segment did I ask about?") == "You haven't asked about any segment in this chat."
    assert reply(
        "Which transaction did we talk about?", kinds=Kinds.of([*RETAIL_TOOLS, TRANSACTION], RETAIL)
    ) == ("We haven't talked about any transaction in this chat.")
    # a kind no tool names is a topic: what was said about it
    assert (
        reply("which product were we talking about?") == "I haven't said anything about product in this chat."
    )


# --- what the user stated ---


def test_what_the_user_stated_is_quoted() -> None:
    told = [
        user("Remember this: my favourite retail segment is 'At Risk'."),
        {"role": "assistant", "content": "Noted."},
        user("Note for later: our campaign budget is £12,500 and the target segment is Regular."),
        {"role": "assistant", "content": "Noted."},
        *CHAT[2:],
    ]
    assert reply("What did I say my favourite segment was?", told) == (
        "You said: \"my favourite retail segment is 'At Risk'.\""
    )
    assert reply("What was the budget I mentioned?", told) == (
        'You said: "our campaign budget is £12,500 and the target segment is Regular."'
    )
    assert reply("Which segment did I say was my favourite?", told) == (
        'The segment you mentioned was At Risk (you said: "Remember this: my favourite retail segment is '
        "'At Risk'.\")."
    )


def test_a_fact_put_in_other_words_and_a_reason_are_left_to_the_model() -> None:
    euros = [user("Please always report figures in euros."), {"role": "assistant", "content": "OK."}]
    assert reply("Which currency did I ask you to use?", euros) is None
    assert reply("Why did you say that?") is None


def test_what_the_user_told_is_theirs_and_a_request_is_not() -> None:
    refused = [
        user("profit by region"),
        {"role": "assistant", "content": "I can't answer that from this data."},
    ]
    assert recall("Which region do I manage?", normalize_messages(refused)) is None
    told = [user("I manage the North region."), {"role": "assistant", "content": "Noted."}]
    assert (
        recall("Which region do I manage?", normalize_messages(told))
        == 'You told me: "I manage the North region."'
    )


def test_who_the_user_is_is_told_from_a_message_that_also_asked_for_data() -> None:
    """ "Hi, I'm Priya and I look after the UK accounts. What was UK revenue in 2015?": the data was
    asked and looked up, and the user also told who they are: "whats my name" and "what do I look
    after?" are theirs, quoted before anything is looked up; a question about the data is not."""
    chat = normalize_messages(
        [
            *answered(
                "Hi, I'm Priya and I look after the UK accounts. What was UK revenue in 2015?",
                "query_data",
                "{}",
                '{"rows": [[2484181]]}',
            ),
            {"role": "assistant", "content": "Revenue, United Kingdom, 2015: 2,484,181.00."},
        ]
    )
    for question, told in (
        ("and whats my name lol", "Hi, I'm Priya"),
        ("who am I?", "Hi, I'm Priya"),
        ("what do I look after again?", "I look after the UK accounts"),
        ("which accounts do I look after?", "I look after the UK accounts"),
        (
            "what's my name and which accounts am I working on?",
            'Hi, I\'m Priya" and "I look after the UK accounts',
        ),
    ):
        reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
        assert reply == ChatReply(f'You told me: "{told}"'), question
    data = answer(
        [*chat, *normalize_messages([user("what's the revenue in 2014?")])], Kinds.of(RETAIL_TOOLS, RETAIL)
    )
    assert data is None


def test_a_correction_the_user_stated_replaces_what_they_said_before() -> None:
    p = ToolPolicy(lexicon=RETAIL).plan(
        normalize_messages(
            [
                SYSTEM,
                user("My favourite segment is Loyal."),
                {"role": "assistant", "content": "Noted."},
                user("Correction: my favourite segment is Champions, not Loyal."),
                {"role": "assistant", "content": "Noted."},
                user("Which segment is my favourite now?"),
            ]
        ),
        RETAIL_TOOLS,
    )
    assert p.mode == "chat" and p.reply == 'You told me: "my favourite segment is Champions, not Loyal."'


# --- what is not about the chat, and a chat with nothing earlier ---


@pytest.mark.parametrize(
    "question",
    [
        "and in France?",
        "How many orders was that?",
        "what about the year before?",
        "Which of those had the most customers?",
        "How many repeat customers did we have in 2024?",
        "Can you tell me the revenue in Germany?",
        "Which customer spent the most in 2024?",
        "Show the top 5 products",
        "Compare that with the previous period",
        "What was the last order?",
        "I asked for France, not Germany.",
        "What was the profit again?",  # a reminder no earlier answer fits: the data's to say
    ],
)
def test_a_data_question_is_no_question_about_the_chat(question: str) -> None:
    assert answer(normalize_messages([SYSTEM, *CHAT, user(question)]), KINDS) is None


@pytest.mark.parametrize(
    "question", ["and in France?", "How many orders was that?", "what about the year before?"]
)
def test_a_data_follow_up_still_calls_a_tool(question: str) -> None:
    p = ToolPolicy(lexicon=RETAIL).plan(normalize_messages([SYSTEM, *CHAT, user(question)]), RETAIL_TOOLS)
    assert p.mode == "call"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What was my first question?", "There is no earlier question of yours in this chat."),
        ("What did I just ask?", "There is no earlier question of yours in this chat."),
        ("repeat your last answer", "I haven't answered anything earlier in this chat."),
        ("Which customer did I ask about first?", "You haven't asked about any customer in this chat."),
    ],
)
def test_a_chat_with_nothing_earlier_says_so(question: str, said: str) -> None:
    assert reply(question, []) == said


def test_questions_about_the_chat_are_told_by_how_they_are_built() -> None:
    assert is_about_the_chat("What did you tell me about that customer before?")
    assert is_about_the_chat("Which two customers did I ask about?")
    assert not is_about_the_chat("As I said, what was the revenue in France?")
    assert not is_about_the_chat("how are we on revenue this month?")
    assert not is_about_the_chat("My question is: how many orders in 2024?")


@pytest.mark.parametrize(
    "question",
    [
        "which customer id was I asking about?",  # going on
        "which product did I end up picking?",
        "which segment did we start with?",  # we: the user and the assistant
        "which state are we looking at?",
        "which city did you list third?",  # listing, naming, ranking: saying too
        "what were you showing me before that?",
    ],
)
def test_saying_going_on_and_by_us_both_is_about_the_chat(question: str) -> None:
    assert is_about_the_chat(question)


@pytest.mark.parametrize(
    "question",
    [
        "which products are we selling most?",
        "which customers did we lose last year?",
        "what did we sell in May?",
    ],
)
def test_what_we_did_as_a_shop_is_no_question_about_the_chat(question: str) -> None:
    assert not is_about_the_chat(question)


def test_the_policy_answers_a_question_about_the_chat_without_the_model() -> None:
    p = ToolPolicy(lexicon=RETAIL).plan(
        normalize_messages([SYSTEM, *CHAT, user("What did I ask first?")]), RETAIL_TOOLS
    )
    assert p.mode == "chat" and p.reply == f'Your first question was: "{QUESTIONS[0]}"'
    assert answer(normalize_messages([SYSTEM, *CHAT, user("Why did you say that?")]), KINDS) == ChatReply(
        None
    )


def test_a_typed_query_column_is_known_by_the_thing_it_names() -> None:
    query = _query_tool(
        {
            "title": "product",
            "properties": {
                "column": {"const": "description"},
                "values": {"type": "array", "items": {"type": "string"}},
            },
        }
    )
    kinds = Kinds.of([query], RETAIL)
    chat = [
        *answered(
            "how much did the vintage christmas paper chain kit make?",
            "retail-analytics-query_data",
            '{"metrics": ["revenue"], "filters": [{"column": "description", "op": "in",'
            ' "values": ["PAPER CHAIN KIT VINTAGE CHRISTMAS"]}]}',
            '{"answer": "Revenue, Description PAPER CHAIN KIT VINTAGE CHRISTMAS, all time: 31,941.89."}',
        ),
        {
            "role": "assistant",
            "content": "Revenue, Description PAPER CHAIN KIT VINTAGE CHRISTMAS, all time: 31,941.89.",
        },
    ]
    assert "PAPER CHAIN KIT VINTAGE CHRISTMAS" in (
        reply("which product did we end up looking at?", chat, kinds) or ""
    )


def test_a_typed_query_column_is_known_by_its_other_words() -> None:
    """A Source column the model says is also the channel: "which channel did I ask about first?"."""
    query = _query_tool(
        {
            "description": "also: channel, sales channel",
            "properties": {
                "column": {"const": "source"},
                "values": {"type": "array", "items": {"type": "string", "enum": ["Nordstrom", "web"]}},
            },
        }
    )
    kinds = Kinds.of([query], RETAIL)
    chat = [
        *answered(
            "how many orders came from Nordstrom?",
            "retail-analytics-query_data",
            '{"metrics": ["orders"], "filters": [{"column": "source", "op": "in", "values": ["Nordstrom"]}]}',
            '{"answer": "Orders, Source Nordstrom, all time: 144."}',
        ),
        {"role": "assistant", "content": "Orders, Source Nordstrom, all time: 144."},
        *answered(
            "and through web?",
            "retail-analytics-query_data",
            '{"metrics": ["orders"], "filters": [{"column": "source", "op": "in", "values": ["web"]}]}',
            '{"answer": "Orders, Source web, all time: 8,247."}',
        ),
        {"role": "assistant", "content": "Orders, Source web, all time: 8,247."},
    ]
    text = reply("which channel did i ask about first?", chat, kinds) or ""
    assert "Nordstrom" in text and "web" not in text.split("(")[0]


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("what did I ask right before I asked about the monthly revenue?", QUESTIONS[1]),
        ("what did I ask before my segment question?", QUESTIONS[0]),
        ("which question came just before I asked for the segment?", QUESTIONS[0]),
    ],
)
def test_the_question_before_one_named_by_what_it_was_about(question: str, quoted: str) -> None:
    text = reply(question)
    assert text is not None and quoted in text and text.count('"') == 2, text


def test_a_column_is_known_by_the_thing_its_result_says_it_names_and_a_month_by_its_answer() -> None:
    """``query_data``'s schema is generic; its result says what its columns name (a product's
    description), and a month asked without its year is the one the answer read."""
    query = tool("query_data", "Query the data", {"filters": {"type": "array"}}, [])
    kinds = Kinds.of([query], RETAIL)
    chat = [
        *answered(
            "sorry - the vintage christmas one",
            "retail-analytics-query_data",
            '{"metrics": ["revenue"], "filters": [{"column": "description", "op": "in",'
            ' "values": ["PAPER CHAIN KIT VINTAGE CHRISTMAS"]}]}',
            json.dumps(
                {
                    "answer": "Revenue, Description PAPER CHAIN KIT VINTAGE CHRISTMAS, all time: 31,941.89.",
                    "entities": {"description": "product"},
                }
            ),
        ),
        {
            "role": "assistant",
            "content": "Revenue, Description PAPER CHAIN KIT VINTAGE CHRISTMAS, all time: 31,941.89.",
        },
        *answered(
            "what was the best-selling product line by revenue in February?",
            "retail-analytics-query_data",
            '{"metrics": ["revenue"], "window": {"start": "2019-02-01", "end": "2019-02-28"}}',
            json.dumps(
                {"answer": "Revenue by product line, February 2019: 1. Food and beverages: 20,000.36"}
            ),
            "q2",
        ),
        {
            "role": "assistant",
            "content": "Revenue by product line, February 2019: 1. Food and beverages: 20,000.36",
        },
    ]
    assert "PAPER CHAIN KIT VINTAGE CHRISTMAS" in (
        reply("which product did we end up looking at?", chat, kinds) or ""
    )
    assert (reply("which month were we talking about?", chat, kinds) or "").startswith(
        "The month we talked about was February 2019 ("
    )


def said_and_answered(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [m for question, text in pairs for m in (user(question), {"role": "assistant", "content": text})]


def test_a_thing_recalled_by_its_words_is_the_turn_that_said_them_as_written() -> None:
    """ "What date was that big receipt again?" is the day of the biggest receipt, not the day of a
    later answer that only left a receipt out."""
    chat = said_and_answered(
        (
            "biggest single receipt ever - how much and when?",
            "Revenue and First date time by order, all time (top 1 of 2420):\n"
            "1. 90: Revenue 1,293,000.00; First date time July 26, 2019",
        ),
        (
            "leaving that one receipt out, which day had the most revenue?",
            "Revenue by day, Order number not 90, all time (top 1 of 249):\n1. February 23, 2020: 647,100.00",
        ),
    )
    assert (reply("sorry, what date was that big receipt again?", chat) or "").startswith(
        "The date we talked about was July 26, 2019"
    )


LONG_CHAT = said_and_answered(
    ("hi! whats the total revenue in this file?", "Revenue, all time: 63,602,668.37."),
    ("and the avg order value?", "Average order value, all time: 3,180.13."),
    ("I call a customer lapsed if they've bought nothing since May 2024. how many are lapsed?", "6,044."),
    ("what share of revenue came from orders that were cancelled?", "Revenue, cancelled: 32.98%."),
    ("which of the lapsed customers opened our last promo email?", "I can't answer that from this data."),
    ("what target did I say my boss set?", "You haven't said anything about a target."),
)


def test_a_topic_named_by_a_synonym_finds_the_answer_that_says_all_of_it() -> None:
    """ "AOV" is the average order value, not any answer about orders; a reply about the chat only
    quotes what was said elsewhere."""
    assert reply("remind me what AOV you gave me earlier", LONG_CHAT) == (
        'When you asked "and the avg order value?", I answered: "Average order value, all time: 3,180.13."'
    )


def test_what_the_user_gave_is_their_statement_before_a_later_question_with_its_words() -> None:
    assert reply("what cutoff did I give you for lapsed?", LONG_CHAT) == (
        'You said: "I call a customer lapsed if they\'ve bought nothing since May 2024"'
    )


def test_today_is_this_chat() -> None:
    assert reply("what was the very first thing I asked you today?", LONG_CHAT) == (
        'Your first question was: "hi! whats the total revenue in this file?"'
    )


def test_a_column_of_two_words_is_asked_for_by_both_and_its_values_by_their_plurals() -> None:
    """ "which two product types" is the product_type column (not any product), and "smartphones vs
    laptops" names two of its values."""
    query = tool("query_data", "Query the data", {"filters": {"type": "array"}}, [])
    rows = json.dumps(
        {"rows": [{"product_type": "Smartphone", "rating": 3.32}, {"product_type": "Laptop", "rating": 2.98}]}
    )
    arguments = '{"filters": [{"column": "product_type", "op": "in", "values": ["Smartphone", "Laptop"]}]}'
    chat = [
        *answered(
            "compare avg rating for smartphones vs laptops",
            "retail-analytics-query_data",
            arguments,
            rows,
            "q1",
        ),
        {"role": "assistant", "content": "Smartphone 3.32, Laptop 2.98."},
    ]
    assert reply(
        "which two product types did I ask you to compare ratings for?", chat, Kinds.of([query], RETAIL)
    ) == ("The product types you asked about were Smartphone and Laptop.")


def test_an_interjection_is_no_topic_of_the_chat() -> None:
    """ "wait, which country…": the kind asked for, not the turns about a "wait"."""
    chat = [
        *answered(
            "How much revenue did Germany bring in during 2011?",
            "retail-analytics-analyze_sales",
            json.dumps({"measure": "revenue", "countries": ["Germany"]}),
            json.dumps({"headline": "Revenue in Germany, 2011: 207,135.37"}),
        ),
        {"role": "assistant", "content": "Revenue, Country Germany, 2011: 207,135.37."},
    ]
    assert reply("wait, which country were we talking about?", chat) == (
        "The country we talked about was Germany "
        '(you asked: "How much revenue did Germany bring in during 2011?").'
    )


def test_a_period_asked_in_words_is_the_one_its_answer_was_read_for() -> None:
    """ "this year", "valentines day": no period as written, the answer's reading names it."""
    chat = [
        *answered(
            "whats revenue this year?",
            "retail-analytics-query_data",
            json.dumps({"metrics": ["revenue"], "window": {"start": "2017-01-01", "end": "2017-12-30"}}),
            json.dumps({"rows": [{"revenue": 733215.26}]}),
            "q1",
        ),
        {"role": "assistant", "content": "Revenue, 2017: 733,215.26."},
        *answered(
            "How much did we sell on valentines day?",
            "retail-analytics-query_data",
            json.dumps({"metrics": ["revenue"]}),
            json.dumps({"rows": [{"revenue": 1.0}]}),
            "q2",
        ),
        {"role": "assistant", "content": "Revenue, February 14, 2017: 1.00."},
    ]
    assert reply("what time period was my first question about?", chat).startswith(
        "The first time period you asked about was 2017"
    )
    assert reply("which day did I ask about?", chat).startswith(
        "The day you asked about was February 14, 2017"
    )


def test_a_name_said_as_here_and_a_desk_run_are_told_back() -> None:
    """ "Hi, Raj here - I run the Books desk." then "what's my name and which desk do I run?": both
    are the user's own words, quoted; nothing is looked up."""
    chat = normalize_messages(
        [
            *answered(
                "Hi, Raj here. I run the Books desk. How many Books transactions are in the file?",
                "query_data",
                "{}",
                '{"rows": [[40]]}',
            ),
            {"role": "assistant", "content": "Orders, Product category Books, all time: 40."},
        ]
    )
    question = "remind me, what's my name and which desk do I run?"
    reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
    assert reply == ChatReply('You told me: "Hi, Raj here" and "I run the Books desk"')
    chat[0] = user("hi, Tomasz from rev ops here. how many Books transactions are in the file?")
    question = "whats my name and which team am i on again?"  # the team said with the name
    reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
    assert reply == ChatReply('You told me: "hi, Tomasz from rev ops here"')
    for question in ("which team did i say i'm with", "what department did I tell you I work in?"):
        reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
        assert reply == ChatReply('You told me: "hi, Tomasz from rev ops here"'), question
    question = "what was my 1st question?"  # a place written in figures is a place, never a topic
    reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
    assert reply is not None and reply.text is not None and "how many Books transactions" in reply.text


def test_a_cutoff_the_user_asked_with_is_quoted_from_their_question() -> None:
    """ "what age cutoff did I use?": no age was listed in an answer; the user's own question that
    set it ("aged 50 and over") is quoted, a word's other form ("aged") counted as the word."""
    chat = normalize_messages(
        [
            *answered(
                "for customers aged 50 and over, revenue by category",
                "query_data",
                '{"metrics": ["revenue"], "group_by": [{"column": "product_category"}],'
                ' "filters": [{"column": "age", "op": "ge", "values": [50]}]}',
                '{"columns": ["product_category", "revenue"], "rows": [["Electronics", 62000]]}',
            ),
            {"role": "assistant", "content": "Revenue by product category, Age at least 50: 1. Electronics"},
        ]
    )
    reply = answer(
        [*chat, *normalize_messages([user("what age cutoff did I use?")])], Kinds.of(RETAIL_TOOLS, RETAIL)
    )
    assert reply == ChatReply('You said: "for customers aged 50 and over, revenue by category"')


def test_which_of_the_two_figures_just_given_is_higher_is_the_chats_own() -> None:
    chat = normalize_messages(
        [
            *answered("Carbonated revenue in june?", "query_data", "{}", '{"rows": [[431.0]]}'),
            {"role": "assistant", "content": "Revenue, Category Carbonated, June 2022: 431.00."},
            *answered("and Non Carbonated?", "query_data", "{}", '{"rows": [[285.0]]}'),
            {"role": "assistant", "content": "Revenue, Category Non Carbonated, June 2022: 285.00."},
        ]
    )
    kinds = Kinds.of(RETAIL_TOOLS, RETAIL)
    reply = answer([*chat, *normalize_messages([user("which of those two was higher?")])], kinds)
    assert reply == ChatReply(
        "Revenue, Category Carbonated, June 2022: 431.00, higher than "
        "Revenue, Category Non Carbonated, June 2022: 285.00."
    )
    reply = answer([*chat, *normalize_messages([user("which of those 2 categories did worse?")])], kinds)
    assert reply is not None and reply.text is not None and reply.text.startswith("Revenue, Category Non")


def test_a_reminder_written_short_is_about_the_chat() -> None:
    assert is_about_the_chat("how much did u say the #1 rep brought in?")
    assert is_about_the_chat("what did i ask u first?")
    chat = normalize_messages(
        [
            *answered("how much did we do in the last 30 days?", "query_data", "{}", '{"rows": [[1995.0]]}'),
            {"role": "assistant", "content": "Revenue, August 2, 2022 to August 31, 2022: 1,995.00."},
            *answered("and last 7 days?", "query_data", "{}", '{"rows": [[440.0]]}'),
            {"role": "assistant", "content": "Revenue, August 25, 2022 to August 31, 2022: 440.00."},
        ]
    )
    question = "remind me what the 30 day number was"
    reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
    assert reply is not None and reply.text is not None and "1,995.00" in reply.text


def test_a_figure_recalled_is_the_answer_with_more_of_the_words_asked() -> None:
    """ "the puerto rico gross number you gave me" is the revenue that listed Puerto Rico, not a
    later count asked of Puerto Rico (each has two of its words; the first has three)."""
    chat = normalize_messages(
        [
            *answered("split gross sales by warehouse country", "query_data", "{}", '{"rows": []}'),
            {
                "role": "assistant",
                "content": "Revenue by warehouse country: 1. USA: 3,798.00 2. Puerto Rico: 2,383.00",
            },
            *answered("how many lines went out of puerto rico?", "query_data", "{}", '{"rows": [[686]]}'),
            {"role": "assistant", "content": "Order lines, Warehouse country Puerto Rico: 686"},
        ]
    )
    question = "what was the puerto rico gross number you gave me again?"
    reply = answer([*chat, *normalize_messages([user(question)])], Kinds.of(RETAIL_TOOLS, RETAIL))
    assert reply is not None and reply.text is not None and "2,383.00" in reply.text, reply

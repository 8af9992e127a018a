"""The domain's words: none by default, the rest from the tools' own metadata and a handed-in lexicon."""

from tool_fixtures import RETAIL_TOOLS, optional, tool, user

from agent_orchestrator.local_model.chat_format import normalize_messages
from agent_orchestrator.local_model.grounding import Sources, unsupported_claims
from agent_orchestrator.local_model.lexicon import NEUTRAL, Lexicon
from agent_orchestrator.local_model.tool_arguments import Mentions, narrow_tool
from agent_orchestrator.local_model.tool_policy import HELLO, ToolPolicy
from agent_orchestrator.mcp_server.lexicon import RETAIL

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
ORDER = tool(
    "get_order",
    "One order of a shop by its id.",
    {"order_id": {"type": "integer", "minimum": 1, "description": "Order id"}},
    ["order_id"],
)
RANKED = tool(
    "ranked_films",
    "Films ranked by a measure.",
    {
        "by": {
            "type": "string",
            "enum": ["gross", "rating"],
            "description": "gross = box office, takings; rating = stars, score",
        },
        "director": optional("string", "Director"),
    },
    [],
)


def test_the_neutral_lexicon_knows_no_domain() -> None:
    assert NEUTRAL.greeting is None and not NEUTRAL.synonyms and not NEUTRAL.id_kinds and not NEUTRAL.terms
    p = ToolPolicy().plan(normalize_messages([user("hi")]), [WEATHER])
    # No greeting to give: the model answers in its own words, with nothing offered to call.
    assert (p.mode, p.reply, p.fallback, p.tools, p.grammar) == ("chat", None, HELLO, [], None)


def test_the_greeting_comes_from_the_lexicon() -> None:
    p = ToolPolicy(lexicon=RETAIL).plan(normalize_messages([user("Good morning!")]), RETAIL_TOOLS)
    assert p.reply == RETAIL.greeting


def test_each_id_parameter_is_a_kind_of_id_labelled_by_its_own_word() -> None:
    words = NEUTRAL.for_tools([ORDER, RETAIL_TOOLS[0]])
    order_7 = Mentions.of(["What was in order 7?"], words)
    assert order_7.ids == (7,) and order_7.id_kinds == {7: "order"}
    assert narrow_tool(ORDER, order_7) is not None
    assert narrow_tool(RETAIL_TOOLS[0], order_7) is None  # an order's id is no customer's
    # The lexicon adds the words the tools do not use for their ids.
    client = Mentions.of(["What did client 42 buy?"], RETAIL.for_tools([ORDER, RETAIL_TOOLS[0]]))
    assert client.id_kinds == {42: "customer"} and narrow_tool(ORDER, client) is None


def test_an_enums_own_gloss_names_its_choices() -> None:
    found = narrow_tool(RANKED, Mentions.of(["Films with the biggest takings?"], NEUTRAL.for_tools([RANKED])))
    assert found is not None
    assert found.tool["function"]["parameters"]["properties"]["by"]["enum"] == ["gross"]
    # Read without the tools' words, the description only says the question is about the choices.
    unread = narrow_tool(RANKED, Mentions.of(["Films with the biggest takings?"]))
    assert unread is not None
    assert unread.tool["function"]["parameters"]["properties"]["by"]["enum"] == ["gross", "rating"]


def test_a_lexicons_synonyms_describe_a_choice() -> None:
    cinema = Lexicon(synonyms=(("gross", "earned"),))
    found = narrow_tool(RANKED, Mentions.of(["Which films earned the most?"], cinema.for_tools([RANKED])))
    assert found is not None
    assert found.tool["function"]["parameters"]["properties"]["by"]["enum"] == ["gross"]


def test_the_tools_terms_are_no_claims_but_their_names_are() -> None:
    terms = RETAIL.for_tools(RETAIL_TOOLS).terms
    sources = Sources.of(['{"segment": "Regular", "customers": 1383}'])
    assert unsupported_claims("Regular Customers: 1,383.", sources, terms) == []
    # "High Value" is in a description, capitalised: a name, which only the data can back.
    assert unsupported_claims("They are Regular, not High Value.", sources, terms) == ["High Value"]

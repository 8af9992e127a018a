"""Decide what the model does with a request that offers tools: call one, answer from results, or chat.

Small models left to choose stop calling tools after a turn or two and answer data questions from
nothing (counts, names, a segment for a customer that does not exist). So the server decides, from the
conversation, and the model only fills in what it is good at:

* **answer**: the current turn already holds tool results. No tools are offered (single-step tool use,
  see :func:`chat_format.answer_after_tool_results`); the answer is checked by ``grounding`` against
  this turn's evidence (:func:`evidence`).
* **call**: the last user message asks for data (anything but a statement about the user or small
  talk, using the tools' own words) and nothing of this turn answered it yet, or the client's
  ``tool_choice`` is ``"required"`` or names a tool, whatever the message. The model *must* call a
  tool: only the few best-ranked tools are offered (``tool_ranking``) and decoding is constrained to
  a call of one of them (``tool_grammar``).
* **chat**: anything else: a question about the conversation itself (what the user asked or said,
  what the assistant answered, what the chat was about) is answered from the messages by code
  (``conversation``), a reason asked about it by the model without tools; thanks or a statement to
  remember gets a fixed short reply (``fixed_reply``), a greeting the lexicon's (``lexicon``), or
  the model's own without tools when the lexicon has none.

Arguments are narrowed to what the user's words support before the grammar is built
(``tool_arguments``): a 0.5B model otherwise fills an id with 12345 and adds an enum value to a
question that named none. The domain's words come from the tools and the server's ``Lexicon``.

The conversation's history is rendered the same way in every mode and the tool block sits just before
the last user message, so the KV cache keeps the whole history across the call and answer steps and
across turns: a long chat prefills only its newest messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .chat_format import answer_after_tool_results
from .chat_kinds import Kinds
from .conversation import ChatReply, asks, is_about_the_chat, is_statement, recall, user_text
from .conversation import answer as answer_about_the_chat
from .history_window import window
from .lexicon import NEUTRAL, Lexicon
from .tool_arguments import Mentions, narrow_tool
from .tool_focus import Focus, focus
from .tool_grammar import tool_call_grammar
from .tool_ranking import ToolRanker, normalized, words
from .tool_results import render_result

Mode = Literal["call", "answer", "chat"]
T = TypeVar("T")

MAX_OFFERED = 3
"""Tools offered in a call step: enough to hold the right one, few enough to keep prefill short."""
EVIDENCE_WEIGHT = 1.5
"""Score a tool gains per unit of ``NarrowedTool.evidence`` (BM25+ scores here run about 3-15)."""
LEAD_RATIO = 1.2
"""A tool scoring less than the best one divided by this is not offered."""

_MEMORY = re.compile(
    r"\b(?:remember|recall|you (?:said|told|mentioned)|did you (?:say|tell)|"
    r"i (?:said|told|mentioned|asked|wrote|gave)|did i|am i|was i|are we|were we|"
    r"my (?:name|focus|goal|task|team|role|job|project|question|deadline|budget)|what (?:was|is) my|"
    r"we (?:discussed|talked|were))\b",
    re.IGNORECASE,
)
_FOLLOW_UP = re.compile(
    r"^\s*(?:and|what about|how about|same|also|now|then|those|them|these|that|there|which of|for)\b"
    r"|\b(?:same (?:month|period|quarter|year|time)|that (?:month|period|quarter|year)|compare\w*)\b",
    re.IGNORECASE,
)
# Beyond an elliptic follow-up, what refers back to the previous answer ("How many orders was that?",
# "Which of those are in France?"): the same cues as the planner's follow-ups.
_REFERS_BACK = re.compile(
    r"\b(?:that|those|these|it|them|there)\b\W*$|\b(?:of|among|from|in|for)\s+(?:those|these|them)\b",
    re.IGNORECASE,
)
_GREETING = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b[\s!.,]*$", re.IGNORECASE)
_THANKS = re.compile(r"^\s*(?:thanks|thank you|cheers|great|perfect|ok|okay)\b[^?]*$", re.IGNORECASE)
THANKS_REPLY = "You're welcome."
NOTED_REPLY = "Noted."
HELLO = "Hello! How can I help?"
"""A greeting when the lexicon has none and the model's own cannot be verified."""
_TOOL_ERROR = re.compile(r"^MCP server '[^']*': Error executing tool (\S+): (.*)$", re.DOTALL)
_TOOL_BLOCK = (
    "# Tools\n\nYou may call one of these functions to get the data for the user's question.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n"
    "<tools>\n{tools}\n</tools>\n\n"
    "Call exactly one function, the one whose data answers the question, with arguments taken from the "
    "question. Return a json object with function name and arguments within <tool_call></tool_call> "
    'XML tags:\n<tool_call>\n{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>'
)
CALL_PREFIX = "<tool_call>\n"
"""Appended after the generation prompt in call mode: the model starts inside a call."""


@dataclass(frozen=True)
class ToolResult:
    """One tool message of the current turn."""

    tool: str
    content: str
    error: str | None = None
    """The failure's reason when the call failed (an unknown id, a country not in the data…)."""


@dataclass
class Plan:
    mode: Mode
    messages: list[dict[str, Any]]
    """What the model sees (single-step history; in call mode with the tool block inserted)."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """The tools a call may name, arguments narrowed: the offered ones in call mode; in chat mode
    every tool the conversation can fill, for a call the model writes as text anyway."""
    grammar: str | None = None
    sources: list[str] = field(default_factory=list)
    """What an answer may state: this turn's evidence (:func:`evidence`)."""
    terms: frozenset[str] = frozenset()
    """The tools' and the lexicon's terms: capitalised in an answer, no claim (``grounding``)."""
    turn_results: list[ToolResult] = field(default_factory=list)
    """Answer mode: the tool results of the current turn."""
    question: str = ""
    """The last user message, runtime tags removed."""
    unmatched: list[str] = field(default_factory=list)
    """Answer mode: names in the question (a country, a product) that neither this turn's calls nor
    their results contain: the data looked up is not about them."""
    focus: Focus | None = None
    """Answer mode: what the question asks of this turn's last result (``tool_focus``), which the
    answer must state."""
    reply: str | None = None
    """Chat mode: the whole answer, given without the model (small talk, a statement to note)."""
    fallback: str | None = None
    """Chat mode: the answer when the model's cannot be verified (a greeting's); None: "I don't know"."""

    @property
    def errors(self) -> list[str]:
        return [r.error for r in self.turn_results if r.error is not None]


def tool_result(content: str, tool: str) -> ToolResult:
    """A tool message's content; the runtime reports a failed MCP call as text of its own form."""
    match = _TOOL_ERROR.match(content.strip())
    if match:
        return ToolResult(match.group(1), content, error=match.group(2).strip())
    return ToolResult(tool, content)


def _tool_names(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """tool_call_id -> short tool name, from the assistant messages that made the calls."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            names[str(call.get("id"))] = _short_name(call)
    return names


class ToolPolicy:
    """Plans requests for one server; caches a ranker and the lexicon's words per distinct tool list.

    With ``count_tokens`` and ``history_budget`` the history the model reads is windowed
    (``history_window``); without them it is rendered whole. ``lexicon``: the domain's words, from
    whoever starts the server (``local_model.lexicon``); the default knows no domain.
    """

    def __init__(
        self,
        count_tokens: Callable[[dict[str, Any]], int] | None = None,
        history_budget: int | None = None,
        lexicon: Lexicon = NEUTRAL,
    ) -> None:
        self._rankers: dict[str, ToolRanker] = {}
        self._lexicons: dict[str, Lexicon] = {}
        self._kinds: dict[str, Kinds] = {}
        self._count_tokens = count_tokens
        self._history_budget = history_budget
        self._lexicon = lexicon
        greeting = {lexicon.greeting} if lexicon.greeting else set()
        self._fixed = frozenset({THANKS_REPLY, NOTED_REPLY, HELLO, *greeting})

    def _ranker(self, tools: Sequence[Mapping[str, Any]]) -> ToolRanker:
        return _cached(self._rankers, tools, ToolRanker)

    def _words(self, tools: Sequence[Mapping[str, Any]]) -> Lexicon:
        """The server's lexicon joined with what ``tools`` say about themselves."""
        return _cached(self._lexicons, tools, self._lexicon.for_tools)

    def about_the_chat(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> ChatReply | None:
        """The reply to the last message (a user's) when it asks about the conversation itself
        (``conversation``); None when it does not. The server asks before its guide, whose data
        planner would read "which customer did I ask about first?" as a question for the data."""
        kinds = _cached(self._kinds, tools, lambda t: Kinds.of(t, self._words(t)))
        return answer_about_the_chat(messages, kinds)

    def plan(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any = None,
    ) -> Plan:
        """``messages`` normalized (``chat_format.normalize_messages``), ``tools`` validated."""
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        last_user = users[-1] if users else -1
        said = [user_text(messages[i]) for i in users]
        lexicon = self._words(tools or ())
        history, _ = answer_after_tool_results(messages, None)
        history = _model_view(history, lexicon, self._fixed)
        if self._count_tokens is not None and self._history_budget is not None:
            history = window(history, self._count_tokens, self._history_budget)
        question = said[-1] if said else ""
        sources = evidence(messages, last_user)
        base = Plan("chat", history, sources=sources, terms=lexicon.terms, question=question)
        turn = messages[last_user + 1 :]
        named = _named_tool(tool_choice, tools or ())
        must_call = bool(tools) and last_user >= 0 and (tool_choice == "required" or named is not None)
        if any(m["role"] == "tool" for m in turn) and not must_call:
            names = _tool_names(messages)
            base.mode = "answer"
            base.turn_results = [
                tool_result(str(m["content"]), names.get(str(m.get("tool_call_id")), ""))
                for m in turn
                if m["role"] == "tool"
            ]
            base.unmatched = _unmatched_names(question, turn, tools or ())
            good = [r for r in base.turn_results if r.error is None]
            if good and said:
                context = said[-2] if len(said) > 1 and is_follow_up(question) else ""
                names_known = _names_by_parameter(tools or ())
                base.focus = focus(question, good[-1].content, context, names_known, lexicon)
            return base
        if last_user < 0:
            return base
        if not tools or tool_choice == "none":
            # No data to look up, but the conversation is still there to quote: "which segment did I
            # say was my favourite?" is answered in the user's words, not left to a small model that
            # may just repeat its last reply (docs/architecture.md#grounded-tool-turns).
            about = self.about_the_chat(messages[: last_user + 1], ())
            asked = question.rstrip().endswith("?")  # "now reply with just YES." is the model's to answer
            base.reply = (
                about.text if about is not None else recall(question, messages[:last_user]) if asked else None
            )
            return base
        previous = said[-2] if len(said) > 1 else ""
        if named is not None:
            tools = [named]
        about = None if must_call else self.about_the_chat(messages[: last_user + 1], tools)
        if about is not None or (
            not must_call and not self._asks_for_data(question, previous, messages, last_user, tools)
        ):
            if about is not None:
                # Quoted from the chat; None leaves a reason asked, or a fact put in other words, to
                # the model (without tools, checked against the conversation).
                base.reply = about.text
            elif is_greeting(question):
                # Nothing to look up or to call: the lexicon's greeting, or the model's own.
                base.reply, base.fallback = self._lexicon.greeting, HELLO
                return base
            else:
                base.reply = fixed_reply(question) or recall(question, messages[:last_user])
            # Not offered, but a call the model writes anyway (it judged the data needed) still counts.
            mentions, earlier = _mentions(said, lexicon)
            base.tools = [n.tool for t in tools if (n := narrow_tool(t, mentions, earlier)) is not None]
            return base
        offered = self._candidates(
            tools,
            question,
            previous,
            said,
            _last_tool(messages[:last_user]) if is_follow_up(question) else None,
            lexicon,
        )
        if not offered and must_call:  # the client insists on a call: the best-ranked, as they are
            offered = [dict(tool) for _, tool in self._ranker(tools).rank(question, previous)][:MAX_OFFERED]
        if not offered:
            return base
        block = {"role": "system", "content": _TOOL_BLOCK.format(tools=_render_tools(offered))}
        # The tool block goes right before the last user message (history stays a cacheable prefix).
        at = _history_index_of_last_user(history)
        call_messages = [*history[:at], block, *history[at:]]
        return Plan(
            "call",
            call_messages,
            tools=offered,
            grammar=tool_call_grammar(offered),
            sources=sources,
            terms=lexicon.terms,
        )

    def _asks_for_data(
        self,
        question: str,
        previous: str,
        messages: list[dict[str, Any]],
        last_user: int,
        tools: Sequence[Mapping[str, Any]],
    ) -> bool:
        ranker = self._ranker(tools)
        if _MEMORY.search(question) or _recalls_a_statement(question, messages[:last_user], ranker):
            return False
        if is_statement(question):
            return False  # "My focus today is the At Risk segment.", "Thanks!": nothing to look up
        if ranker.covers(question):
            return True
        # A short follow-up ("and in France?") of a turn that used a tool asks for the same data.
        used_tool_before = any(m["role"] == "tool" for m in messages[:last_user])
        return bool(previous) and used_tool_before and len(words(question)) <= 6

    def _candidates(
        self,
        tools: Sequence[Mapping[str, Any]],
        question: str,
        previous: str,
        said: Sequence[str],
        previous_tool: str | None,
        lexicon: Lexicon,
    ) -> list[dict[str, Any]]:
        """The tools to offer, best first: BM25 relevance plus the parameters the user's words fill;
        a follow-up ("And in France?") leans to the tool that answered the question before.

        When one tool leads clearly it is offered alone: measured on 0.5B, the model picks a worse
        second tool more often than the ranking is wrong (``bench/eval_assistant.py``).
        """
        mentions, earlier = _mentions(said, lexicon)
        # "in April 2025" names a period without the word: say it, so tools for periods rank.
        query = f"{question} period month" if mentions.starts else question
        ranked = [
            (score, i, narrowed)
            for i, (score, tool) in enumerate(self._ranker(tools).rank(query, previous))
            if (narrowed := narrow_tool(tool, mentions, earlier)) is not None
        ]
        if previous_tool is not None and ranked:
            lead = max(score for score, _, _ in ranked)
            ranked = [
                (score + lead if _short_name(n.tool) == previous_tool else score, i, n)
                for score, i, n in ranked
            ]
        if any(n.takes_period for _, _, n in ranked):
            # "customers who bought in March 2024": a tool that cannot take the period would answer
            # for all time, however well its words match.
            ranked = [item for item in ranked if item[2].takes_period]
        most = max((n.named for _, _, n in ranked), default=0)
        if most >= 2:
            # "Regular customers in the United Kingdom": a combination only a tool taking both can
            # answer (the segment overview's Regular row counts every country).
            ranked = [item for item in ranked if item[2].named == most]
        scored = [(score + EVIDENCE_WEIGHT * n.evidence, i, n.tool) for score, i, n in ranked]
        scored.sort(key=lambda item: (-item[0], item[1]))
        if not scored:
            return []
        best = scored[0][0]
        return [tool for score, _, tool in scored[:MAX_OFFERED] if score >= best / LEAD_RATIO]


def _cached(cache: dict[str, T], tools: Sequence[Mapping[str, Any]], build: Callable[[Any], T]) -> T:
    """``build(tools)``, once per distinct tool list (the runtime sends the same list every time)."""
    key = json.dumps(tools, sort_keys=True)
    found = cache.get(key)
    if found is None:
        if len(cache) > 16:
            cache.clear()
        found = cache[key] = build(tools)
    return found


def _named_tool(tool_choice: Any, tools: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The tool a ``{"type": "function", "function": {"name": …}}`` choice names, if offered."""
    if not isinstance(tool_choice, Mapping):
        return None
    name = (tool_choice.get("function") or {}).get("name")
    return next((t for t in tools if (t.get("function") or {}).get("name") == name), None)


def _names_by_parameter(tools: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The names the tools know per parameter (``segment``: High Value, Regular, …)."""
    found: dict[str, list[str]] = {}
    for tool in tools:
        properties = (tool["function"].get("parameters") or {}).get("properties") or {}
        for name, spec in properties.items():
            for choice in [spec, *spec.get("anyOf", ())]:
                found.setdefault(name, []).extend(str(v) for v in choice.get("enum", ()))
    return found


def _mentions(said: Sequence[str], lexicon: Lexicon) -> tuple[Mentions, Mentions | None]:
    """What the last question names, and for a follow-up what it and the one before name together."""
    if len(said) > 1 and is_follow_up(said[-1]):
        return Mentions.of(said[-1:], lexicon), Mentions.of(said[-2:], lexicon)
    return Mentions.of(said[-1:], lexicon), None


def evidence(messages: Sequence[Mapping[str, Any]], last_user: int) -> list[str]:
    """What an answer may state (docs/architecture.md#grounded-tool-turns): the client's system
    messages, this turn's question, calls and results, and what the question refers back to: for a
    follow-up (:func:`is_follow_up`, "…was that?") the question and the answer before it, for a
    question about the conversation (``_MEMORY``, ``conversation.is_about_the_chat``: "what did you
    tell me…") the conversation. An earlier turn's entity in an unrelated answer has no evidence,
    however well that turn was checked."""
    found = [str(m["content"]) for m in messages if m["role"] == "system" and m["content"]]
    if last_user < 0:
        return found
    question = user_text(messages[last_user])
    if _MEMORY.search(question) or is_about_the_chat(question):
        return found + [
            user_text(m) if m["role"] == "user" else str(m["content"])
            for m in messages
            if m["role"] in {"tool", "user", "assistant"} and m["content"]
        ]
    found.append(question)
    for message in messages[last_user + 1 :]:
        if message["role"] == "tool" and message["content"]:
            found.append(str(message["content"]))
        for call in message.get("tool_calls") or ():
            found.append(json.dumps(call["function"].get("arguments"), ensure_ascii=False))
    if is_follow_up(question) or _REFERS_BACK.search(question):
        found += _turn_before(messages[:last_user])
    return found


def _turn_before(earlier: Sequence[Mapping[str, Any]]) -> list[str]:
    """The previous turn's question and final answer, which a follow-up leans on."""
    answer: list[str] = []
    for message in reversed(earlier):
        if message["role"] == "user":
            return [user_text(message), *answer]
        if message["role"] == "assistant" and message["content"] and not answer:
            answer = [str(message["content"])]
    return []


def _short_name(tool_or_call: Mapping[str, Any]) -> str:
    """ "<server>-<tool>" -> "<tool>" (the runtime prefixes the MCP server's name)."""
    return str(tool_or_call["function"]["name"]).rsplit("-", 1)[-1]


def _last_tool(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The short name of the last tool called in ``messages``."""
    for message in reversed(messages):
        for call in reversed(message.get("tool_calls") or ()):
            return _short_name(call)
    return None


def _unmatched_names(
    question: str, turn: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Names in the question that this turn's calls and results never mention, leaving out the
    names the tools know (their enum values: "Is customer 7 High Value?" is asked, not filtered)."""
    covered = " ".join(
        [str(m.get("content") or "") for m in turn]
        + [str(c["function"]["arguments"]) for m in turn for c in m.get("tool_calls") or ()]
        + [json.dumps(t["function"].get("parameters") or {}) for t in tools]
    )
    seen = normalized(covered)
    return [p for p in Mentions.of([question]).phrases if normalized(p) not in seen]


def _model_view(
    history: list[dict[str, Any]], lexicon: Lexicon, fixed: frozenset[str]
) -> list[dict[str, Any]]:
    """The history as the model reads it: tool results as text lines (``tool_results``) led by the
    figure their question asked for (``tool_focus``), and without the ``fixed`` replies ("Noted."),
    which a 0.5B model otherwise repeats as its next answer. A pure function of the history (and of
    the server's lexicon), so every request renders the same prefix (the KV cache stays valid)."""
    view: list[dict[str, Any]] = []
    asked = ["", ""]  # the last two user questions: a follow-up takes its column from the one before
    for m in history:
        if m["role"] == "user":
            asked = [asked[1], user_text(m)]
        if m["role"] == "assistant" and m["content"] in fixed:
            continue
        if m["role"] == "tool":
            context = asked[0] if is_follow_up(asked[1]) else ""
            asked_for = focus(asked[1], m["content"], context, lexicon=lexicon)
            m = {**m, "content": render_result(m["content"], asked_for.line if asked_for else None)}
        view.append(m)
    return view


def is_follow_up(text: str) -> bool:
    """An elliptic question that leans on the previous one ("And in France?", "What about them?",
    "How does that compare with the same month a year earlier?"): its arguments may come from the
    previous question too; a full question's come from itself."""
    return bool(_FOLLOW_UP.search(text)) or len(text.split()) <= 4


def is_greeting(text: str) -> bool:
    """ "hi", "Good morning!": nothing to look up, nothing to remember."""
    return bool(_GREETING.match(text))


def fixed_reply(text: str) -> str | None:
    """The reply to thanks and to a statement, without the model: a 0.5B model "acknowledges"
    "My name is Priya" with an invented biography. The statement stays in the conversation, so
    later questions about it are answered from there."""
    if _THANKS.match(text) and not asks(text):  # "ok now something else. whats the revenue"
        return THANKS_REPLY
    return NOTED_REPLY if is_statement(text) else None


def _recalls_a_statement(question: str, earlier: Sequence[Mapping[str, Any]], ranker: ToolRanker) -> bool:
    """Whether the question asks about something the user stated earlier ("Which quarter is the
    review about?" after "I'm preparing the Q3 review"): it shares a word, other than the data's
    own vocabulary, with one of the user's earlier statements."""
    asked = {w for w in words(question) if not w.isdigit()} - ranker.vocabulary  # ids are data keys
    return any(
        message["role"] == "user"
        and is_statement(text := user_text(message))
        and not asked.isdisjoint(words(text))
        for message in earlier
    )


def _history_index_of_last_user(history: list[dict[str, Any]]) -> int:
    for i in range(len(history) - 1, -1, -1):
        if history[i]["role"] == "user":
            return i
    return len(history)


def _render_tools(tools: Sequence[Mapping[str, Any]]) -> str:
    """One compact line per tool, in the shape the Qwen template uses (JSON of the OpenAI tool)."""
    lines = []
    for tool in tools:
        fn = tool["function"]
        params = fn.get("parameters") or {}
        props = {
            name: {k: v for k, v in spec.items() if k in {"type", "enum", "description", "format"}}
            for name, spec in (params.get("properties") or {}).items()
        }
        for spec in props.values():
            if "description" in spec:
                spec["description"] = str(spec["description"]).split("\n")[0][:80]
        compact = {"name": fn["name"], "description": fn.get("description", "")}
        compact["parameters"] = {
            "type": "object",
            "properties": props,
            "required": params.get("required", []),
        }
        lines.append(json.dumps({"type": "function", "function": compact}, ensure_ascii=False))
    return "\n".join(lines)

"""Questions about the conversation itself, answered by code from the request's own messages.

"Which customer did I ask about first?" names a customer and a ranking, so a data planner reads it as
"the top customer" and answers with a figure nobody asked for; a small model asked to quote the chat
paraphrases it, or makes up what it cannot find. Yet the answer is in the request: the runtime sends
the whole session with every turn (it replays it on resume, so on every device and after a
restart). So the server finds it there and quotes it verbatim, before any planner or model
(docs/architecture.md#grounded-tool-turns):

* the user's own questions by position: "what did I ask first?", "my second question", "two
  questions ago", "what did I just ask?";
* the assistant's answers by position or topic: "repeat your second answer", "what did you say
  before that?", "what figure did you give me for revenue?" (the visible text of an answer, never a
  message that only calls tools);
* what the chat was about, of one kind: "which customer were we talking about?", "which quarter did I
  ask about first?". Kinds and names come from the tools (:class:`Kinds`: a parameter's enum values,
  a ``<kind>_id`` or a name a tool takes, the names the calls and results of the chat hold) and
  from the calendar (days, months, quarters, years as written);
* what the user stated: "what budget did I mention?" (and, through :func:`recall`, a question the
  planner left that shares words with a statement).

A question is about the chat by how it is built, not by its wording: someone's saying or asking in
the past ("did I ask", "you told me", "we were talking about"), a question or an answer counted ("my
first question", "two answers ago"), the chat itself ("in this chat"). A data follow-up ("and in
France?", "what about the year before?", "which of those had the most customers?") has none of it
and goes to the data as before. Only what the messages hold is quoted: when nothing earlier fits, the
reply says so in one sentence. A reason ("why did you say that?") or a fact the user put in other
words is left to the model, without tools and checked against the conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .chat_kinds import TIME_KINDS, Call, Finder, Kinds, table_kinds
from .tool_ranking import stem, words

Side = Literal["user", "assistant", "both"]
"""Whose messages a question is about: the user's questions, the assistant's answers, or the turns."""

_RUNTIME_TAG = re.compile(r"<current_datetime>.*?</current_datetime>\s*", re.DOTALL)
_STATEMENT = re.compile(
    r"^\s*(?:i|i'm|i've|i'd|my|we|we're|we've|our (?:focus|goal|team|task)|thanks|thank|ok|okay|great|"
    r"cool|nice|good|got it|noted|sure|yes|no|hi|hello|hey|bye|please remember|note|for this chat)\b",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\b(?:what|whats|what's|how|which|who|when|where|why|show|give|tell|list|compare|total)\b", re.IGNORECASE
)
_CLAUSE = re.compile(r"[.;:!?]\s+|,\s+(?:and|but|so)\s+|\s+and\s+(?=i\b|i'm|my\b|we\b|our\b)", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|we|we're|we've|our|us)\b", re.IGNORECASE)
_RECALL_WORDS = frozenset(
    {"remind", "mention", "say", "tell", "remember", "recall", "again", "back", "quick"}
)

# --- what makes a question one about the chat (on the lower-cased sentence that asks) ----------------


def _ing(verb: str) -> str:
    """ "ask" -> "asking", "pick" -> "picking", "compare" -> "comparing", "put" -> "putting"."""
    if verb == "begin":
        return "beginning"
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if len(verb) == 3 and verb[1] in "aeiou" and verb[2] not in "aeiouwxy" and verb[0] not in "aeiou":
        return verb + verb[2] + "ing"
    return verb + "ing"


_SAY_VERBS = """ask say tell mention write type give send answer reply respond show quote state report put
start begin open compare check look pick choose select list name rank use set apply""".split()  # noqa: SIM905
_SAY = rf"(?:{'|'.join(_SAY_VERBS)})"
_SAID = (
    r"(?:asked|said|told|mentioned|wrote|typed|gave|given|sent|answered|replied|responded|showed|shown|"
    r"quoted|stated|reported|put|started|began|opened|compared|checked|looked|picked|chose|chosen|selected|"
    r"listed|named|ranked|used|applied)"
)
_SAYING = rf"(?:{'|'.join(sorted({_ing(verb) for verb in _SAY_VERBS}))})"
"""The same, going on: "which customer id was I asking about?", "which product did I end up picking?"."""
_NOUN = r"(?:questions?|answers?|messages?|repl(?:y|ies)|responses?|quer(?:y|ies)|requests?|prompts?)"
_FIGURE = r"(?:numbers?|figures?|values?|amounts?|totals?|results?)"
"""What an answer stated, counted like the answers themselves ("the first number you gave me")."""
_ORD = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,2}(?:st|nd|rd|th)|last|latest"
    r"|previous|prior|preceding|most\s+recent|earliest|original(?:ly)?|initial(?:ly)?)"
)
_USER = re.compile(
    rf"\b(?:did|have|had)\s+i\s+(?:\w+\s+){{0,2}}?(?:{_SAY}|{_SAID}|{_SAYING})\b"
    rf"|\bi(?:'ve|'d|\s+have|\s+had)?\s+(?:\w+\s+)?{_SAID}\b|\b(?:was|am)\s+i\s+(?:\w+\s+)?{_SAYING}\b"
    r"|\bmy\s+(?:\w+\s+){0,2}?(?:questions?|messages?|quer(?:y|ies)|requests?|prompts?)\b(?!\s*(?:is\b|:))"
)
_ASSISTANT = re.compile(
    rf"\b(?:did|have|had)\s+you\s+(?:\w+\s+)?(?:{_SAY}|{_SAID})\b|\bwere\s+you\s+(?:\w+\s+)?{_SAYING}\b"
    rf"|\byou(?:'ve|'d|\s+have|\s+had)?\s+(?:\w+\s+)?{_SAID}\b"
    r"|\byour\s+(?:[\w-]+\s+){0,2}?(?:answers?|repl(?:y|ies)|responses?|messages?|lists?|tables?)\b"
    r"|\b(?:the|your)\s+(?:\w+\s+)?(?:answer|reply|response)\s+(?:to|for)\b"
    r"|^\W*(?:(?:please|pls|can you|could you|would you|will you|kindly)\s+)*(?:repeat|restate)\s+"
    r"(?:that|it|this|what|your|the)\b|\bsay\s+(?:that|it)\s+again\b|\bcome again\b"
)
_BOTH = re.compile(
    r"\bwe(?:'ve|'d|\s+have|\s+had)?\s+(?:\w+\s+)?(?:talked|discussed|covered|chatted|spoken|spoke|went over"
    r"|gone over|looked at|been (?:talking|discussing|looking at))\b"
    r"|\b(?:did|have|had)\s+we\s+(?:\w+\s+){0,2}?(?:talk(?:ed|ing)?|discuss(?:ed|ing)?|cover(?:ed|ing)?"
    r"|chat(?:ted|ting)?|speak(?:ing)?|spoken|go(?:ne|ing)? over|went over|look(?:ed|ing)? at"
    r"|check(?:ed|ing)?|compar(?:e|ed|ing))\b"
    r"|\b(?:are|were)\s+we\s+(?:\w+\s+)?(?:talking|discussing|speaking|looking at|focusing on)\b"
    rf"|\b(?:did|have|had)\s+we\s+(?:\w+\s+)?(?:{_SAY}|{_SAID})\b"
    r"|\bwe(?:'re|\s+are|\s+were)\s+(?:\w+\s+)?(?:talking|discussing)\s+about\b"
    # "remind me which category we're on": at the end, never "how are we on revenue this month?"
    r"|\b(?:we(?:'re|\s+are|\s+were)|are\s+we|were\s+we)\s+(?:on|looking\s+at|focus(?:ed|ing)\s+on)\W*$"
    r"|\b(?:in|of|from|during|throughout)\s+(?:this|our|the)\s+(?:chat|conversation)\b"
)
_COUNTED = re.compile(
    rf"\b{_ORD}\s+(?:(?:ever|one|of\s+(?:the|all|your|my))\s+)?{_NOUN}\b|\b\w+\s+{_NOUN}\s+(?:ago|back)\b"
    rf"|\b{_NOUN}\s+before\s+(?:that|this|(?:the\s+)?last)\b"
)
_ASKS = re.compile(
    r"\?\s*$|^\W*(?:(?:so|and|ok|okay|sorry|hey|quick(?:\s+check)?|please|pls|just|but|then|now|can you|"
    r"could you|would you|will you|tell me|remind me|i (?:forgot|forget)|i don'?t remember)[\s,:;!-]*)*"
    r"(?:what|which|who|whom|whose|when|where|how|why|did|do|does|was|were|is|are|have|has|had|can|"
    r"could|would|will|remind|repeat|restate|say|tell|recall|quote|list|show|give|remember|name)\b"
)
"""A question or a request: "I asked for France, not Germany." corrects a reading, it asks nothing."""
_AGAIN = re.compile(
    r"^\W*(?:(?:sorry|ok|okay|so|and|oh|hmm|um|wait|remind me)\W+)*"  # "sorry, what was the date again?"
    r"(?:what|which|who|when|where|how)\b.*\bagain\W*$"
    r"|^\W*(?:(?:sorry|ok|okay|so|and|oh|hmm|um|wait)\W+)*remind\s+me\W+(?:what|which|who|how)\b.*\b(?:was|were)\W*$"
)
"""Only a reminder asked ("what was the revenue again?", "remind me what the 30 day number was"):
about the chat when an earlier answer fits."""
_WHY = re.compile(r"^\W*(?:why|how come)\b")
_ASIDE = re.compile(r"\b(?:as|like)\s+(?:i|you)\s+(?:said|mentioned|told\s+(?:me|you))\b")
"""A turn of phrase, not a question about the chat: "as I said, …"."""
_INSTRUCTION = re.compile(r"\bask(?:ed)?\s+you\s+to\b")
"""What the user asked the assistant to do ("which currency did I ask you to use?"): a statement of
theirs, not one of their questions."""
_ELLIPSIS = re.compile(
    rf"^\W*(?:and|ok(?:ay)?|so|then|what about|how about)?\W*(?:(?:the\s+)?(?:one|{_NOUN})\s+)?"
    rf"(?:before|after|(?:the\s+)?{_ORD}(?:\s+one)?)(?:\s+(?:that|this|it))?\W*$"
)
"""A follow-up of a question about the chat: "and before that?", "and the second one?"."""
_PLURAL = re.compile(
    r"\b(?:questions|answers|messages|replies|responses|queries|requests|prompts|everything|all)\b|\bso far\b"
)

# --- positions ------------------------------------------------------------------------------------

_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_NUMBERS |= {"eight": 8, "nine": 9, "ten": 10}
_NTH = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_ORDINALS = {word: n for n, word in enumerate(_NTH, 1)} | dict.fromkeys(
    ("earliest", "original", "originally", "initial", "initially"), 1
)
_NUMBERED = re.compile(r"\d{1,2}(?:st|nd|rd|th)")
"""A place written in figures ("my 2nd question"): a position, never a topic."""
_VERB = (
    r"(?:ask(?:ed)?|say|said|tell|told|mention(?:ed)?|answer(?:ed)?|repl(?:y|ied)|respond(?:ed)?|write|wrote|"
    r"type|typed|give|gave|show(?:ed|n)?|talk(?:ed)?|discuss(?:ed)?|cover(?:ed)?|look(?:ed)?)"
)
_BEFORE_THAT = re.compile(r"\bbefore\s+(?:that|it)\b|\bthe\s+one\s+before\b|^\W*(?:and\s+)?before\W*$")
_BEFORE_THIS = re.compile(r"\bbefore\s+this(?:\s+(?:one|question|message))?\b")
"""Before the question being asked: the last one."""
_BEFORE_ASKING = re.compile(
    r"\bbefore\s+(?:i\s+(?:asked|said|mentioned|brought\s+up)\s+(?:you\s+)?(?:about\s+|for\s+)?"
    r"|(?:the|my|your)\s+(?=\S+(?:\s+\S+){0,4}\s+(?:question|one|answer)\b))(?P<what>[a-z0-9' ]+)"
)
"""Before a question named by what it was about: "what did I ask right before I asked about the
basket value?", "the question before the weather one"."""
_AFTER_THAT = re.compile(r"\bafter\s+(?:that|this|it)\b|\bthe\s+one\s+after\b|^\W*(?:and\s+)?after\W*$")
_SECOND_TO_LAST = re.compile(
    r"\b(?:second|2nd)[\s-]+(?:to|from)[\s-]+(?:the\s+)?last\b|\bpenultimate\b|\blast\s+but\s+one\b"
    r"|\b(?:one\s+)?before\s+(?:the\s+)?last\b"
)
_AGO = re.compile(rf"\b(\w+)\s+(?:{_NOUN}|turns?)\s+(?:ago|back)\b")
_ORDINAL_PLACES = (
    # "my first question", "the very first thing I asked", "your second answer", "the last one"
    re.compile(
        rf"\b(?:very\s+)?({_ORD})\s+(?:(?:ever|of\s+(?:the|all|your|my))\s+)?(?:{_NOUN}|things?|ones?|{_FIGURE})\b"
    ),
    # "what did I ask first?", "which customer did I ask about first in this chat?", not "… last year"
    re.compile(
        rf"\b{_VERB}\b(?:\s+(?!{_ORD}\b)[\w'-]+){{0,3}}?\s+(?:very\s+)?({_ORD})\b"
        r"(?!\s+(?!(?:in|on|here|and|or|but|so|of|please|time|again|today)\b)[a-z])"
    ),
    # "what did I originally ask?", "what you last said"
    re.compile(rf"\b({_ORD})\s+(?:i\s+|you\s+|we\s+)?{_VERB}\b"),
    # "and the second one?"
    re.compile(rf"^\W*(?:and|what about|how about)?\W*(?:the\s+)?({_ORD})(?:\s+one)?\W*$"),
)
_AT_THE_START = re.compile(
    r"\b(?:at|in)\s+the\s+(?:very\s+)?(?:start|beginning|outset)\b"
    r"(?!\s+of\s+(?!(?:the|this|our)\s+(?:chat|conversation)\b))"
)
"""Where the chat began ("the number you gave me at the start"), not a period's start ("… of 2017")."""
_JUST = re.compile(rf"\bjust\s+(?:\w+\s+)?{_VERB}\b")
_OPENED_WITH = re.compile(
    r"\b(?:start|started|begin|began|open|opened)\s+(?:the\s+(?:chat|conversation)\s+)?with\b"
)

# --- what it is about -----------------------------------------------------------------------------

_HEAD = re.compile(
    r"\b(?:which|what)\s+((?:(?:of|one|was|were|is|are|the|two|three|four|five|six|\d+|other|first|second|third"
    r"|last|latest|previous|very|exact|particular|specific|kind|names?)\s+)*)([a-z][\w-]*)(?!\s*#?\d|')"
)
"""The thing asked for: "which customer", "what was the first country", "which two customers"; not
one named ("what was customer 12350's segment?")."""
_FILLER = frozenset(
    re.findall(
        r"\S+",
        "ask asked say said tell told mention mentioned write wrote written type typed give gave given send "
        "sent answer answered reply replied respond responded response show showed shown quote quoted state "
        "stated "
        "report reported put start started begin began open opened question query request prompt message "
        "thing one talk talked discuss discussed cover covered chat chatted speak spoke spoken look looked "
        "go went gone over repeat restate remind remember recall forgot forget know conversation session "
        "thread here earlier before previous previously again ago back just first second third fourth fifth "
        "sixth seventh eighth ninth tenth last latest recent most prior preceding penultimate original "
        "originally initial initially earliest very ever sorry quick check please pls ok okay hey so far all "
        "everything exact exactly actually about now then also figure number value amount result two three "
        "four five six seven eight nine ten whole list turn not that those end ended up finally eventually "
        "today word words verbatim literally "
        # interjections: "wait, which country were we talking about?" is about no "wait"
        "wait hmm hm oh um uh er ah well right alright anyway btw hi hello thanks thank "
        # how long ago, said loosely: "the figure you gave me a sec ago"
        "sec secs minute minutes min mins moment while bit lol haha",
    )
)
"""Words of asking about the chat, not of what was talked about."""


@dataclass(frozen=True)
class ChatReply:
    """The reply to a question about the conversation itself."""

    text: str | None
    """What to answer, quoted from the messages; None: about the chat, but nothing to quote (a
    reason asked for, a fact the user put in other words): the model answers it, without tools."""


def user_text(message: Mapping[str, Any]) -> str:
    """A user message without the runtime's ``<current_datetime>`` prefix."""
    return _RUNTIME_TAG.sub("", str(message.get("content") or "")).strip()


def asks(text: str) -> bool:
    """A question word or a request verb anywhere ("ok now something else. whats the revenue")."""
    return bool(_ASKING.search(text))


def is_statement(text: str) -> bool:
    """The user tells rather than asks: a fact about themselves, thanks, a greeting."""
    return bool(_STATEMENT.match(text)) and not text.rstrip().endswith("?") and not asks(text)


def _tells(text: str) -> bool:
    """The user told something of theirs ("Remember this: my favourite segment is At Risk.",
    "Correction: our budget is 9,000."): in the first person, asking nothing ("profit by region"
    asks, without a question mark)."""
    return not text.endswith("?") and not asks(text) and bool(_FIRST_PERSON.search(text))


def recall(question: str, earlier: Sequence[Mapping[str, Any]]) -> str | None:
    """A question (not about the data) that shares words with something the user told earlier
    ("Which customer was I focusing on?"), answered with the user's own words: always right, and
    nothing for a small model to garble. Told: a message that asks nothing and called for no data.
    Of equals the latest wins ("Correction: my favourite segment is Champions" after "My favourite
    segment is Loyal"). A question about the assistant's answers ("what did you say…") is no
    question about what the user told."""
    if re.search(r"\byou\b", question, re.IGNORECASE):
        return None
    found = _best_clause(question, _told(_turns(earlier)))
    return f'You told me: "{found}"' if found else None


def _told(turns: Sequence[_Turn]) -> list[str]:
    """What the user told of theirs, clause by clause: a whole message that asks nothing, and the
    clauses that ask nothing of one that also asks ("Hi, I'm Priya and I look after the UK accounts.
    What was UK revenue in 2015?")."""
    told = []
    for turn in turns:
        if not turn.calls and _tells(turn.question):
            told.append(turn.question)
            continue
        told += [  # "Hi, Raj here": an introduction, in the third person
            c.strip()
            for c in _CLAUSE.split(turn.question)
            if c.strip() and (_tells(c.strip()) or (_INTRODUCED.search(c) and not asks(c)))
        ]
    return told


LOOKS_AFTER = (
    r"(?:look(?:ing)?\s+after|run(?:ning)?|manag(?:e|ing)|handl(?:e|ing)|cover(?:ing)?|own|work(?:ing)?\s+(?:on|in)"
    r"|in\s+charge\s+of|responsible\s+for|head(?:ing)?|lead(?:ing)?|oversee(?:ing)?|focus(?:ing)?\s+on"
    r"|care\s+about|support(?:ing)?|supervis(?:e|ing))"
)
"""How people say what they look after ("I run the Books desk", "which segment am I working on?")."""
_ABOUT_ME = re.compile(
    r"\b(?:what(?:'s|s|\s+is|\s+was)|who(?:'s|s|\s+is)?|do\s+you\s+(?:know|remember))\s+(?:\w+\s+)?my\b"
    r"|\bwho\s+am\s+i\b|\bwhat\s+do\s+i\s+(?:do|look\s+after|handle|manage|run|cover)\b"
    rf"|\b(?:which|what)\s+(?:\w+\s+){{1,2}}(?:do|am)\s+i\s+{LOOKS_AFTER}\b"
    r"|\b(?:which|what)\s+(?:\w+\s+){1,2}did\s+i\s+(?:say|tell\s+you|mention)\s+(?:i'?m|i\s+am|i\s+was|i\s+work|my)\b",
    re.IGNORECASE,
)
"""A question about the user themselves ("whats my name lol", "what's my role again?", "who am I?",
"which category do I manage?", "which segment am I working on?", "which team did I say I'm with?"):
answered from what they told, never from the data."""
_WHERE_FROM = re.compile(
    r"\b(?:team|department|dept|group|desk|org|organi[sz]ation|company|division|unit|office|function)\b",
    re.IGNORECASE,
)
"""Where the user works, asked: what their introduction says ("Marco from merch planning here")."""
_INTRODUCED = re.compile(
    r"\b(?i:i'm|i\s+am|im|my\s+name\s+is|my\s+name's|this\s+is|call\s+me|it's)\s+(?P<name>[A-Z][a-z]+)\b"
    r"|\b[A-Z][a-z]+(?:\s+(?i:from|in|on|at|with)(?:\s+[\w&-]+){1,3}?)?\s+(?i:here)\b"
)
"""An introduction: "I'm Priya", and in the third person "Hi, Raj here", "Tomasz from rev ops here"."""


def about_me(question: str, earlier: Sequence[Mapping[str, Any]]) -> str | None:
    """The user's own words for what a question about themselves asks ("whats my name": "Hi, I'm
    Priya"), or None when it is no such question or they told nothing that fits."""
    if not _ABOUT_ME.search(question):
        return None
    told = _told(_turns(earlier))
    if re.search(r"\bname\b|\bwho\s+am\s+i\b", question, re.IGNORECASE):
        named = [clause for clause in told if _INTRODUCED.search(clause)]
        if not named:
            return None
        # "what's my name and which desk do I run?": the introduction, and what fits the rest
        rest = re.split(r"\band\b", question, maxsplit=1)[1] if re.search(r"\bname\s+and\b", question) else ""
        other = _best_clause(rest, [c for c in told if c != named[-1]]) if rest else None
        return f'You told me: "{named[-1]}"' + (f' and "{other}"' if other else "")
    found = _best_clause(question, told)
    if found is None and _WHERE_FROM.search(question):
        found = next((c for c in reversed(told) if _INTRODUCED.search(c)), None)
    return f'You told me: "{found}"' if found else None


_ON_A_LIST = re.compile(
    rf"(?:\b(?:{'|'.join(_NTH)}|top|bottom|last|no\.?\s*\d+|number\s+\d+|\d+(?:st|nd|rd|th))|#\s*\d+)\s+"
    r"(?:one\s+)?(?:on|in)\s+(?:that|the|this|your|my)\s+(?:\w+\s+)?(?:list|ranking|table)\b"
    r"|\b(?:was|is|were|came|ranked|placed)\s+(?:#\s*\d+|no\.?\s*\d+|number\s+\d+)\W*$",
    re.IGNORECASE,
)
"""A row of a list answered before, by its place ("fourth on that list you gave me", "which state did
you say was #1?")."""


def is_about_the_chat(question: str) -> bool:
    """Whether a question asks about the conversation itself, by how it is built: someone's saying or
    asking in the past, a question or an answer counted, the chat itself."""
    sentence = _asked_sentence(question)
    return bool(_ASKS.search(sentence)) and _side(sentence) is not None


def answer(messages: Sequence[Mapping[str, Any]], kinds: Kinds) -> ChatReply | None:
    """The reply to the last message when it asks about the conversation itself (``messages``
    normalized: the whole session, the question last); None when it does not, or when it only asks
    for a reminder ("…again?") that no earlier answer fits: the data path takes it then."""
    if not messages or messages[-1]["role"] != "user":
        return None
    if _ON_A_LIST.search(user_text(messages[-1])):
        return None  # "which customer was fourth on that list?": a row of the data's answer, read there
    mine = about_me(user_text(messages[-1]), messages[:-1])
    if mine is not None:  # "whats my name": what they told, before anything is looked up
        return ChatReply(mine)
    turns = _turns(messages[:-1])
    compared = which_of_two(user_text(messages[-1]), turns)
    if compared is not None:  # "which of those two was higher?": the last two figures, side by side
        return ChatReply(compared)
    asked = _question(messages, kinds)
    if asked is None:
        return None
    kinds = kinds.with_kinds(k for k in table_kinds(c for t in turns for c in t.calls) if k not in _FILLER)
    asked = _question(messages, kinds) or asked  # "which region …": a column of the chat's own tables
    if asked.why or (asked.instruction and not asked.topic):
        return ChatReply(None)
    text = _Reply(turns, asked, kinds, _pointed_at(messages, kinds, asked)).text()
    if text is None and asked.weak:
        return None
    return ChatReply(text)


_WHICH_OF_TWO = re.compile(
    r"\bwhich\s+(?:of\s+(?:those|these|them|the)\s+(?:two|2)(?:\s+\w+)?|one)\s+(?:was|is|were|did|had)\b"
    r".*?\b(?P<more>higher|bigger|larger|greater|more|better|stronger|lower|smaller|less|fewer|worse|weaker)\b",
    re.IGNORECASE,
)
"""Two figures just given, compared ("which of those two accounts was bigger?")."""
_ONE_FIGURE = re.compile(
    r"^(?P<label>[^\n:]+): (?P<figure>-?[$€£]?\d[\d,]*(?:\.\d+)?)%?(?:\s[A-Z]{3})?(?:[.,]|$)"
)
"""An answer of one figure, as the data's answers state one ("Revenue, Category Carbonated, June
2022: 431.00.")."""
_LESS = frozenset({"lower", "smaller", "less", "fewer", "worse", "weaker"})


def which_of_two(question: str, turns: Sequence[_Turn]) -> str | None:
    """Which of the last two answers of one figure each is the higher (or lower), with both: the
    chat's own figures, never looked up again. None when it is no such question or the chat's
    last two answers are not one figure each."""
    asked = _WHICH_OF_TWO.search(question)
    if asked is None:
        return None
    figures = []
    for turn in reversed(turns[-4:]):
        stated = _ONE_FIGURE.match(turn.answer)
        if stated is not None:
            figures.append((stated["label"].strip(), stated["figure"]))
        if len(figures) == 2:
            break
    if len(figures) < 2:
        return None
    (second, b), (first, a) = figures
    value = {f: float(re.sub(r"[^\d.-]", "", f)) for f in (a, b)}
    if value[a] == value[b]:
        return f"Neither: {first} and {second} were the same, {a}."
    low = asked["more"].lower() in _LESS
    (win, won), (lose, lost) = sorted([(first, a), (second, b)], key=lambda p: value[p[1]], reverse=not low)
    word = asked["more"].lower()
    return f"{win}: {won}, {word} than {lose}: {lost}."


# --- the conversation -----------------------------------------------------------------------------


@dataclass
class _Turn:
    """One user message and what followed it up to the next one."""

    question: str
    answer: str = ""
    """The last visible text the assistant wrote in the turn ("" when it only called tools)."""
    calls: list[Call] = field(default_factory=list)


def _turns(messages: Sequence[Mapping[str, Any]]) -> list[_Turn]:
    turns: list[_Turn] = []
    at: dict[str, int] = {}  # a call's id -> its place in its turn's calls
    for message in messages:
        if message["role"] == "user":
            turns.append(_Turn(user_text(message)))
        elif turns and message["role"] == "assistant":
            if str(message.get("content") or "").strip():
                turns[-1].answer = str(message["content"]).strip()
            for call in message.get("tool_calls") or ():
                at[str(call.get("id"))] = len(turns[-1].calls)
                turns[-1].calls.append((_arguments(call), None))
        elif turns and message["role"] == "tool":
            i = at.get(str(message.get("tool_call_id")), len(turns[-1].calls))
            if i < len(turns[-1].calls):
                turns[-1].calls[i] = (turns[-1].calls[i][0], _json(str(message.get("content") or "")))
    return turns


def _arguments(call: Mapping[str, Any]) -> Mapping[str, Any]:
    raw = (call.get("function") or {}).get("arguments")
    value = _json(raw) if isinstance(raw, str) else raw
    return value if isinstance(value, Mapping) else {}


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


# --- reading the question -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Asked:
    side: Side
    questions_only: bool
    """The user's questions are counted, not everything they wrote ("what did I ask first?"), and the
    answers to them, not every reply ("your first answer" is no "Hello!" to a greeting)."""
    position: int | None
    """1-based from the first, or -n from the last; None: not said."""
    step: int
    """-1 "before that", +1 "after that": from what the question before pointed at."""
    kind: str | None
    """The kind of thing asked for ("which customer …"), None: no kind."""
    kind_word: str
    """The word the question used for it, singular ("clients" -> "client")."""
    many: bool
    """All of them asked for ("which customers", "what have I asked so far?"), not one."""
    topic: tuple[str, ...]
    """The question's own words of what was talked about, beyond asking about the chat."""
    weak: bool
    """Only "…again?": about the chat only when an earlier answer fits."""
    instruction: bool
    """About what the user asked the assistant to do (:data:`_INSTRUCTION`)."""
    why: bool
    """A reason asked for: the model's to give."""
    anchor: tuple[str, ...] = ()
    """The words of the question the one asked for came just before (:data:`_BEFORE_ASKING`)."""


def _asked_sentence(question: str) -> str:
    """The sentence that asks ("Sorry, we got cut off. Which customer was I focusing on?"),
    lower-cased, without a turn of phrase such as "as I said"."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", question.strip()) if s]
    asking = [s for s in sentences if s.rstrip().endswith("?")] or sentences or [""]
    sentence = re.sub(r"\b(what|which|who)(?:'s|s)\b", r"\1 is", asking[-1].lower().replace("\u2019", "'"))
    sentence = re.sub(r"\bu\b", "you", re.sub(r"\bur\b", "your", sentence))  # "what did u say?"
    return _ASIDE.sub(" ", sentence)


def _side(sentence: str) -> Side | None:
    if _ASSISTANT.search(sentence):
        return "assistant"
    if _USER.search(sentence):
        return "user"
    counted = _COUNTED.search(sentence)
    if counted:
        return "assistant" if re.search(r"answer|repl|respons", counted.group(0)) else "user"
    return "both" if _BOTH.search(sentence) else None


def _question(messages: Sequence[Mapping[str, Any]], kinds: Kinds, depth: int = 0) -> _Asked | None:
    """The last user message of ``messages`` read as a question about the chat (None: it is not).
    An elliptic follow-up ("and before that?") is read on from the question before it."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if not users:
        return None
    sentence = _asked_sentence(user_text(messages[users[-1]]))
    side = _side(sentence) if _ASKS.search(sentence) else None
    if side is None and len(users) > 1 and depth < 8 and _ELLIPSIS.search(sentence):
        before = _question(messages[: users[-1]], kinds, depth + 1)
        if before is not None and not before.weak:
            position, step = _position(sentence, before.kind_word)
            return replace(before, position=position, step=step, many=False, weak=False)
    weak = side is None and bool(_AGAIN.search(sentence))
    if side is None and not weak:
        return None
    kind, kind_word, head = _kind(sentence, kinds)
    position, step = _position(sentence, kind_word)
    many = position is None and not step and bool(_PLURAL.search(sentence))
    if kind_word:
        counted = re.search(rf"\b(?:{'|'.join(_NUMBERS)}|\d+)\s+{re.escape(kind_word)}\b", sentence)
        many = bool(counted) or stem(kind_word) != kind_word
    used = {*re.findall(r"[a-z0-9]+", head), kind_word}
    plain = re.sub(r"'(?:s|ve|re|d|m|ll)\b", "", re.sub(r"n't\b", " not", sentence))
    topic = [
        w
        for w in re.findall(r"[a-z0-9]+", plain)
        if w not in used | _FILLER and stem(w) not in _FILLER and not _NUMBERED.fullmatch(w)
    ]
    anchored = _BEFORE_ASKING.search(sentence)
    anchor = tuple(
        w
        for w in re.findall(r"[a-z0-9]+", anchored["what"] if anchored else "")
        if w not in _FILLER and words(w)
    )
    if anchor:  # what the asked-for question came before, not what it was about
        topic, position, step = [], None, 0
    return _Asked(
        side=side or "both",
        questions_only=bool(
            re.search(rf"\b(?:ask|question|quer|request|prompt|answer|repl|respon|{_FIGURE}\b)", sentence)
        ),
        position=position,
        step=step,
        kind=kind,
        kind_word=stem(kind_word) if kind_word else "",
        many=many,
        topic=tuple(dict.fromkeys(w for w in topic if words(w))),
        weak=weak,
        instruction=bool(_INSTRUCTION.search(sentence)),
        why=bool(_WHY.search(sentence)),
        anchor=anchor,
    )


def _stems(text: str) -> set[str]:
    found = re.findall(r"[a-z0-9]+", text.lower())
    return {*found, *map(stem, found)}


def _kind(sentence: str, kinds: Kinds) -> tuple[str | None, str, str]:
    """The kind asked for ("which customer …" -> customer), the word used, and the words up to it.
    A span of time named by its length ("the 30 day number") is the figure's, not a kind asked."""
    sentence = re.sub(r"\b\d+[\s-]*(?:day|week|month|year)s?\b", " ", sentence)
    for match in _HEAD.finditer(sentence):
        after = re.match(r"[\s-]+([a-z]\w*)", sentence[match.end() :])
        if after is not None:  # "which two product types": a column of two words, or its head noun
            kind = kinds.named(f"{match.group(2)}_{after.group(1)}") or kinds.named(after.group(1))
            if kind is not None:
                return kind, f"{match.group(2)} {after.group(1)}", match.group(0) + after.group(0)
        kind = kinds.named(match.group(2))
        if kind is not None:
            return kind, match.group(2), match.group(0)
    return None, "", ""


def _position(sentence: str, kind_word: str) -> tuple[int | None, int]:
    """Which of the questions or answers: 1-based, -n from the last, or a step (-1, +1) from the one
    the question before pointed at."""
    if _BEFORE_THIS.search(sentence):
        return -1, 0
    if _BEFORE_THAT.search(sentence):
        return None, -1
    if _AFTER_THAT.search(sentence):
        return None, 1
    if _SECOND_TO_LAST.search(sentence):
        return -2, 0
    ago = _AGO.search(sentence)
    if ago and (ago.group(1) in _NUMBERS or ago.group(1).isdigit()):
        return -(_NUMBERS.get(ago.group(1)) or int(ago.group(1))), 0
    for pattern in _ORDINAL_PLACES:
        found = pattern.search(sentence)
        if found:
            return _ordinal(found.group(1)), 0
    if kind_word:  # "the first customer I asked about"
        found = re.search(rf"\b({_ORD})\s+{re.escape(kind_word)}\b", sentence)
        if found:
            return _ordinal(found.group(1)), 0
    if _JUST.search(sentence):
        return -1, 0
    return (1, 0) if _OPENED_WITH.search(sentence) or _AT_THE_START.search(sentence) else (None, 0)


def _ordinal(word: str) -> int:
    word = re.sub(r"\s+", " ", word)
    if word in _ORDINALS:
        return _ORDINALS[word]
    if word[:1].isdigit():
        return int(re.sub(r"\D", "", word))
    return -1  # last, latest, previous, prior, preceding, most recent


def _pointed_at(
    messages: Sequence[Mapping[str, Any]], kinds: Kinds, asked: _Asked, depth: int = 0
) -> int | None:
    """For "what did you say before that?": the turn (0-based) whose question or answer the question
    before quoted, when it was one about the chat."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if not asked.step or len(users) < 2 or depth >= 8:
        return None
    earlier = messages[: users[-1]]
    before = _question(earlier, kinds)
    if before is None:
        return None
    pointed = _pointed_at(earlier, kinds, before, depth + 1)
    return _Reply(_turns(earlier[: users[-2]]), before, kinds, pointed).turn()


# --- the reply ------------------------------------------------------------------------------------


class _Reply:
    """What the chat holds for one question about it, and the words of the reply."""

    def __init__(self, turns: list[_Turn], asked: _Asked, kinds: Kinds, pointed_at: int | None) -> None:
        self.turns, self.asked, self.kinds, self.pointed_at = turns, asked, kinds, pointed_at

    def items(self) -> list[tuple[int, str]]:
        """(turn, text) of what is counted: the user's questions (or messages), or the answers (or
        replies)."""
        if self.asked.side == "assistant":
            said = [(i, t.answer) for i, t in enumerate(self.turns) if t.answer]
        else:
            said = [(i, t.question) for i, t in enumerate(self.turns) if t.question]
        if not self.asked.questions_only:
            return said
        return [(i, text) for i, text in said if not is_statement(self.turns[i].question)]

    def index(self) -> int | None:
        """The place among :meth:`items` the question points at, when it points at one."""
        asked, items = self.asked, self.items()
        if asked.kind is not None or asked.topic or asked.many:
            return None
        if asked.anchor:  # the one before the last that was about the anchor's words
            about = [n for n, (_, text) in enumerate(items) if set(map(stem, asked.anchor)) <= _stems(text)]
            return about[-1] - 1 if about else None
        if asked.step and self.pointed_at is not None:  # the one before (after) the turn quoted last
            before = [n for n, (turn, _) in enumerate(items) if turn < self.pointed_at]
            after = [n for n, (turn, _) in enumerate(items) if turn > self.pointed_at]
            return (before[-1] if before else -1) if asked.step < 0 else (after[0] if after else len(items))
        if asked.step:  # "that" is the last one
            return len(items) - 1 + asked.step
        if asked.position is None or asked.position < 0:
            return len(items) + (asked.position or -1)
        return asked.position - 1

    def turn(self) -> int | None:
        """The turn of the question or answer quoted, when one is."""
        at, items = self.index(), self.items()
        return items[at][0] if at is not None and 0 <= at < len(items) else None

    def text(self) -> str | None:
        asked = self.asked
        if asked.kind is not None:
            found = self._things(asked.kind)
            if found is None and asked.side == "user" and asked.topic:
                # "what age cutoff did I use?": no age was listed, the user's own words hold it
                return self._about((asked.kind_word, *asked.topic))
            return found
        if asked.topic:
            return self._about()
        if asked.weak:
            return None
        items = self.items()
        if not items:
            if asked.side == "assistant":
                return "I haven't answered anything earlier in this chat."
            return f"There is no earlier {self._noun()} of yours in this chat."
        if asked.many:
            return self._listed(items)
        at = self.index()
        if at is None or not 0 <= at < len(items):
            return self._missing(at, len(items))
        return self._quoted(items[at], at, len(items))

    # -- by position

    def _noun(self) -> str:
        """What is counted: "question" or every "message" of the user's, "answer" or every "reply"."""
        if self.asked.side == "assistant":
            return "answer" if self.asked.questions_only else "reply"
        return "question" if self.asked.questions_only else "message"

    def _missing(self, at: int | None, count: int) -> str:
        which = "earlier" if at is None or at < 0 else _nth(at + 1)
        so_far = f"{count} {self._noun() if count == 1 else _plural(self._noun())}"
        if self.asked.side == "assistant":
            return f"There is no {which} {self._noun()} of mine in this chat: I have given {so_far} so far."
        return f"There is no {which} {self._noun()} of yours in this chat: you have sent {so_far} so far."

    def _quoted(self, item: tuple[int, str], at: int, count: int) -> str:
        from_end = self.asked.step or self.asked.position is None or self.asked.position < 0
        which = "last" if from_end and at == count - 1 else _nth(at + 1)
        turn, text = item
        if self.asked.side == "assistant":
            return f'My {which} {self._noun()} (to "{self.turns[turn].question}") was: "{text}"'
        if self.asked.side == "both" and self.turns[turn].answer:
            return f'You asked: "{text}", and I answered: "{self.turns[turn].answer}"'
        return f'Your {which} {self._noun()} was: "{text}"'

    def _listed(self, items: list[tuple[int, str]]) -> str:
        lines = "\n".join(f'{n}. "{text}"' for n, (_, text) in enumerate(items, 1))
        if self.asked.side == "assistant":
            return f"My {_plural(self._noun())} in this chat, in order:\n{lines}"
        return f"Your {_plural(self._noun())} in this chat, in order:\n{lines}"

    # -- by topic

    def _about(self, topic: tuple[str, ...] | None = None) -> str | None:
        """What was said about the question's topic ("what figure did you give me for revenue?"):
        the answer, or the user's message, that shares the most of it, a topic asked about counting
        twice what an answer only mentions (a refusal's list of what can be asked names everything),
        the latest of equals (the earliest when the question says "first")."""
        asked = self.asked
        topic = topic or asked.topic
        if asked.side == "user" or asked.instruction:
            # what the user gave or said: a statement of theirs before a question with the same words
            stated = not asked.questions_only and not asked.instruction
            quoted = _best_clause(" ".join(topic), [t.question for t in self.turns], stated=stated)
            if quoted is None:
                return None  # put in other words, perhaps: the model reads the conversation
            verb = "asked" if asked.questions_only and not asked.instruction else "said"
            return f'You {verb}: "{quoted}"'
        first = asked.position is not None and asked.position > 0
        meanings = [self.kinds.lexicon.meanings(words(w)) for w in topic]
        best, best_score = None, (0, 0)
        for i, turn in enumerate(self.turns):
            if is_about_the_chat(turn.question):
                continue  # a reply about the chat only quotes it: what it quotes was said where it was
            if not turn.answer:
                continue
            asked_words, said = set(words(turn.question)), set(words(turn.answer))
            weights = [
                2 if any(p <= asked_words for p in phrases) else 1 if any(p <= said for p in phrases) else 0
                for phrases in meanings
            ]
            # the turn that has more of the topic's words first ("the puerto rico gross number": the
            # revenue by warehouse that listed Puerto Rico, not a count asked of Puerto Rico later)
            score = (sum(1 for w in weights if w), sum(weights))
            if score > best_score or (score[0] and score == best_score and not first):
                best, best_score = i, score
        if best is None:
            return None if asked.weak else f"I haven't said anything about {' '.join(topic)} in this chat."
        turn = self.turns[best]
        return f'When you asked "{turn.question}", I answered: "{turn.answer}"'

    # -- things of one kind

    def _things(self, kind: str) -> str | None:
        """The things of the kind asked for, in the order they came up: in the user's questions and
        the calls made for them (what the user asked about), and in the answers."""
        asked = self.asked
        finder = Finder([c for t in self.turns for c in t.calls], kind, self.kinds)
        found = self._found(finder, kind, by_topic=True)
        if not found and asked.topic and asked.side == "assistant":
            found = self._found(finder, kind, by_topic=False)  # "came out on top": phrasing, no topic
        if not found:
            if asked.weak or (asked.topic and asked.side == "user"):
                return None  # a fact the user stated in other words, perhaps: the model reads it
            return self._no_things(kind)
        things = list(dict.fromkeys(thing for _, _, thing in found))
        if asked.many:
            return f"{self._lead(kind, many=len(things) > 1)} {_series([finder.shown(t) for t in things])}."
        if asked.position is None or asked.step:  # the latest turn's, of those that say most of the topic
            turn = max((self._sharing(self.turns[i]), i) for i, _, _ in found)[1]
            chosen = list(dict.fromkeys(t for i, _, t in found if i == turn))
        else:
            latest_first = list(dict.fromkeys(thing for _, _, thing in reversed(found)))
            order = things if asked.position > 0 else latest_first
            at = asked.position - 1 if asked.position > 0 else -asked.position - 1
            if at >= len(order):
                listed = _series([finder.shown(t) for t in things])
                return f"There is no {_nth(at + 1)} {self._word(kind)} in this chat, only {listed}."
            chosen = [order[at]]
            turn = next(i for i, _, t in (found if asked.position > 0 else reversed(found)) if t == chosen[0])
        source = self.turns[turn].question
        said = "said" if _tells(source) else "asked"
        from_question = any(i == turn and q for i, q, _ in found)
        evidence = f'you {said}: "{source}"' if from_question else f'in my answer to "{source}"'
        which = _nth(asked.position) if asked.position and asked.position > 0 else ""
        lead = self._lead(kind, many=len(chosen) > 1, which=which)
        return f"{lead} {_series([finder.shown(t) for t in chosen])} ({evidence})."

    def _found(self, finder: Finder, kind: str, *, by_topic: bool) -> list[tuple[int, bool, str]]:
        """(turn, in the user's question, thing) of every thing of the kind, in the turns about the
        question's topic when ``by_topic``."""
        asked, found = self.asked, []
        for i, each in enumerate(self.turns):
            if (by_topic and asked.topic and not self._shares(each)) or is_about_the_chat(each.question):
                continue  # a reply about the chat only quotes it: its things were found where said
            called = finder.in_calls(each.calls)
            # "the Classic Deluxe" asked, "The Classic Deluxe Pizza" looked up: the name in full
            in_question = [t for t in finder.in_text(each.question) if not _part_of(t, called)] + called
            if kind in TIME_KINDS:
                in_question = [_as_answered(thing, each.answer) for thing in in_question]
                if not in_question and each.calls and each.answer:
                    # "valentines day", "this year": the period asked about is the one its answer
                    # was read for, which the answer's reading names before its figures
                    in_question = finder.in_text(each.answer.split(":", 1)[0])
            if asked.side != "assistant" and in_question:
                found += [(i, True, thing) for thing in in_question]
            elif asked.side != "user" and each.answer:
                found += [(i, False, thing) for thing in finder.in_text(each.answer)]
        return found

    def _shares(self, turn: _Turn) -> bool:
        return self._sharing(turn)[1] > 0

    def _sharing(self, turn: _Turn) -> tuple[int, int]:
        """How many of the topic's words a turn says as written (or as the start of its own: "big"
        of "biggest"), then in any word alike ("that big receipt": the biggest receipt asked about,
        over a later turn that only left a receipt out)."""
        said = set(words(f"{turn.question} {turn.answer}"))
        alike = sum(1 for w in self.asked.topic if self.kinds.lexicon.alike(words(w)) & said)
        if not alike:
            return 0, 0
        written = sum(
            1 for w in self.asked.topic if any(s.startswith(stem) for stem in words(w) for s in said)
        )
        return written, alike

    def _word(self, kind: str) -> str:
        return self.asked.kind_word or kind

    def _lead(self, kind: str, *, many: bool, which: str = "") -> str:
        noun = f"{which} {_plural(self._word(kind)) if many else self._word(kind)}".strip()
        verb = "were" if many else "was"
        if self.asked.side == "user":
            return f"The {noun} you {'asked about' if self.asked.questions_only else 'mentioned'} {verb}"
        if self.asked.side == "assistant":
            return f"The {noun} I mentioned {verb}"
        return f"The {noun} we talked about {verb}"

    def _no_things(self, kind: str) -> str:
        if self.asked.side == "user":
            said = "asked about" if self.asked.questions_only else "mentioned"
            return f"You haven't {said} any {self._word(kind)} in this chat."
        if self.asked.side == "assistant":
            return f"I haven't mentioned any {self._word(kind)} in this chat."
        return f"We haven't talked about any {self._word(kind)} in this chat."


def _as_answered(period: str, answer: str) -> str:
    """A month asked without its year ("February") as the answer to it dated it ("February 2019"):
    which February the chat was about is what the answer read."""
    if not re.fullmatch(r"[A-Za-z]+", period):
        return period
    dated = re.search(rf"\b{re.escape(period)}\s+((?:19|20)\d\d)\b", answer, re.IGNORECASE)
    return f"{period.capitalize()} {dated.group(1)}" if dated else period


def _part_of(thing: str, names: Sequence[str]) -> bool:
    """Whether ``thing`` is part of a longer one of ``names`` (a name said short, looked up in full)."""
    said = thing.casefold()
    return any(said in name.casefold() and said != name.casefold() for name in names)


def _best_clause(question: str, said: Sequence[str], *, stated: bool = False) -> str | None:
    """The clause of ``said`` that shares the most words with the question, the latest of equals
    (with ``stated``, a statement before any question: "what cutoff did I give you for lapsed?" is
    "I call a customer lapsed if …", not a later question about lapsed customers); the whole
    message when two things are asked ("my name, and which countries …")."""
    asked = set(words(question)) - _RECALL_WORDS
    two_asks = bool(re.search(r"\w,?\s+and\s+\w", question.strip()))
    best, best_score = None, (0, False)
    for text in said:
        for clause in [text] if two_asks else _CLAUSE.split(text):
            heard = set(words(clause))
            overlap = sum(1 for word in asked if any(_same_word(word, other) for other in heard))
            score = (overlap, stated and not asks(clause) and not clause.rstrip().endswith("?"))
            if overlap and score >= best_score:
                best, best_score = clause.strip(), score
    return best


def _same_word(one: str, other: str) -> bool:
    """One word in two forms ("age" and "aged", "manage" and "managed", "order" and "orders")."""
    if one == other:
        return True
    short, long = sorted((one, other), key=len)
    return len(short) >= 3 and len(long) - len(short) <= 2 and long.startswith(short)


def _plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return f"{word[:-1]}ies"
    return f"{word}es" if re.search(r"(?:s|x|ch|sh)$", word) else f"{word}s"


def _series(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _nth(n: int) -> str:
    if 1 <= n <= len(_NTH):
        return _NTH[n - 1]
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

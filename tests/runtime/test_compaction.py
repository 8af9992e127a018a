"""Long conversations against a small context limit: the runtime compacts instead of overflowing.

The provider block carries the model's real limits (``max_prompt_tokens``); past them the runtime asks
the model for a summary and continues from it. The scripted model summarises faithfully (it carries the
facts it was told into the summary), so the test checks the runtime's side: compaction happens, the
session stays usable, and a fact from turn 1 still reaches the model after 40 turns.
"""

import re

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.testing.scripted_model import Reply, ScriptedModel, Text, message_text, user_messages

FACT = re.compile(r"favourite retail segment is '([^']+)'")
SUMMARY_REQUEST = "create a detailed summary of the conversation"
FILLER = "Here is some filler about seasonal baskets, returns and loyalty programmes. " * 4


def faithful_model(body: dict) -> Reply:
    """Summarise by keeping the facts; answer the memory question from whatever the request holds."""
    everything = " ".join(message_text(m) for m in body["messages"])
    last = user_messages(body)[-1]
    facts = sorted(set(FACT.findall(everything)))
    if SUMMARY_REQUEST in last:
        return Text("Summary: " + " ".join(f"The user's favourite retail segment is '{f}'." for f in facts))
    if "which retail segment" in last.lower():
        return Text(f"Your favourite retail segment is '{facts[0]}'." if facts else "I don't know.")
    return Text("Noted.")


async def test_forty_turns_compact_and_the_first_fact_survives(tmp_path, scripted_model: ScriptedModel):
    scripted_model.default = faithful_model
    settings = RuntimeSettings(
        data_dir=tmp_path,
        provider_base_url=scripted_model.base_url,
        model="scripted-model",
        provider_max_prompt_tokens=4000,
        provider_max_output_tokens=200,
        turn_timeout=60,
    )
    async with CopilotRuntime(settings) as runtime, await runtime.create_session("long-chat-1") as session:
        await runtime.ask(session, "Remember: my favourite retail segment is 'At Risk'. " + FILLER)
        for turn in range(2, 41):
            assert await runtime.ask(session, f"Turn {turn}. {FILLER}") == "Noted."
        answer = await runtime.ask(session, "Which retail segment did I say was my favourite?")

    requests = scripted_model.requests
    summaries = [r for r in requests if SUMMARY_REQUEST in user_messages(r)[-1]]
    assert summaries, "the runtime never compacted"
    final = requests[-1]
    assert len(user_messages(final)) < 20  # most of the 41 turns were compacted away...
    assert any("Summary: " in message_text(m) for m in final["messages"])  # ...into the summary
    assert answer == "Your favourite retail segment is 'At Risk'."  # and turn 1's fact survived

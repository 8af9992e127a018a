"""A long chat's prompt stays bounded, and stays the same from turn to turn (a cacheable prefix)."""

import itertools

from agent_orchestrator.local_model.history_window import window


def chat(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "sys"}]
    for i in range(turns):
        messages += [
            {"role": "user", "content": f"question {i}"},
            {"role": "tool", "content": f"result {i}"},
            {"role": "assistant", "content": f"answer {i}"},
        ]
    return messages


def cost(_message: dict) -> int:
    return 10  # every message: 10 tokens, a turn: 30


def test_a_chat_that_fits_is_untouched() -> None:
    messages = chat(5)
    assert window(messages, cost, budget=1000) is messages


def test_a_long_chat_keeps_its_opening_and_latest_turns_within_budget() -> None:
    shown = window(chat(50), cost, budget=600)
    contents = [m["content"] for m in shown]
    assert contents[:7] == ["sys", "question 0", "result 0", "answer 0", "question 1", "result 1", "answer 1"]
    assert contents[-3:] == ["question 49", "result 49", "answer 49"]
    assert "earlier turns of this conversation are not shown" in contents[7]
    assert sum(cost(m) for m in shown) <= 600 + 10  # the note


def test_the_window_moves_in_blocks_so_consecutive_turns_share_their_prefix() -> None:
    renders = [window(chat(n), cost, budget=600) for n in range(30, 45)]
    moves = sum(1 for a, b in itertools.pairwise(renders) if b[: len(a) - 3] != a[: len(a) - 3])
    assert moves <= 2  # 15 more turns, blocks of 8: the prefix changed at most twice


def test_the_question_being_answered_is_never_dropped() -> None:
    messages = [*chat(3), {"role": "user", "content": "x" * 100}]
    shown = window(messages, lambda m: len(m["content"]), budget=50)
    assert shown[-1]["content"] == "x" * 100

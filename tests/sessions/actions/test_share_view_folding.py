"""A share link's views are audited at most once a window per link and viewer, each row counting
the views it stands for (docs/architecture.md#share-links)."""

from datetime import UTC, datetime, timedelta

from agent_orchestrator.sessions.actions.sharing import ViewFolding

START = datetime(2026, 1, 1, tzinfo=UTC)
EVERY = timedelta(minutes=10)


def test_views_within_the_window_are_folded_into_the_next_row() -> None:
    folding = ViewFolding(EVERY)
    key = ("link", "203.0.113.9")
    assert folding.admit(key, START) == 1  # the first view is written
    assert [folding.admit(key, START + timedelta(seconds=n)) for n in range(1, 300)] == [None] * 299
    # The first view after the window is written, standing for itself and the 299 folded before it.
    assert folding.admit(key, START + EVERY) == 300
    assert folding.admit(key, START + EVERY + timedelta(seconds=1)) is None
    assert folding.admit(key, START + 3 * EVERY) == 2


def test_each_link_and_viewer_has_its_own_window() -> None:
    folding = ViewFolding(EVERY)
    assert folding.admit(("link-1", "203.0.113.9"), START) == 1
    assert folding.admit(("link-2", "203.0.113.9"), START) == 1
    assert folding.admit(("link-1", "198.51.100.7"), START) == 1
    assert folding.admit(("link-1", "user:7"), START) == 1  # a signed-in viewer, by user id
    assert folding.admit(("link-1", "203.0.113.9"), START + timedelta(seconds=1)) is None


def test_forgotten_windows_do_not_grow_without_bound() -> None:
    folding = ViewFolding(EVERY)
    for n in range(10_002):
        folding.admit(("link", f"10.0.{n // 256}.{n % 256}"), START)
    folding.admit(("link", "192.0.2.1"), START + EVERY)  # prunes the windows that are over
    assert len(folding._last) == 1

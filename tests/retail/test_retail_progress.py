"""Progress output: a bar redrawn in place on a terminal, whole lines (no ``\\r``) in a log."""

import io

from agent_orchestrator.progress import progress_bar
from agent_orchestrator.retail import StderrProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def report_a_run(progress: StderrProgress) -> None:
    progress("products", 0, 1200)
    for done in range(100, 1201, 100):
        progress("products", done, 1200)
    progress("indexes", 0, 1)  # never reports its end: the next stage does
    progress("importing rows", 5000, 0)  # unknown total: a count
    progress("done", 1, 1)


def test_in_a_log_each_stage_is_its_start_and_its_end_on_lines_of_their_own() -> None:
    log = io.StringIO()
    report_a_run(StderrProgress("retail dataset", stream=log))
    assert "\r" not in log.getvalue()
    assert [line.rsplit(" [", 1)[0] for line in log.getvalue().splitlines()] == [
        "retail dataset: products:   0% (0/1200)",
        "retail dataset: products: 100% (1200/1200)",
        "retail dataset: indexes:   0% (0/1)",
        "retail dataset: indexes: 100% (1/1)",
        "retail dataset: importing rows: 0",
        "retail dataset: importing rows: 5000",
    ]


def test_on_a_terminal_the_bar_is_redrawn_in_place() -> None:
    screen = Terminal()
    report_a_run(StderrProgress("retail dataset", stream=screen))
    output = screen.getvalue()
    assert output.count("\n") == 3  # one finished line per stage
    assert "\rretail dataset: products: 100%" in output


def test_a_disabled_bar_shows_nothing() -> None:
    log = io.StringIO()
    bar = progress_bar("hashing", 10, enabled=False, stream=log)
    bar.update(10)
    bar.close()
    assert log.getvalue() == ""

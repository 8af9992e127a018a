"""Segment rules and RFM scoring as pure functions: each segment, each boundary, tie handling."""

from __future__ import annotations

import pytest

from agent_orchestrator.retail.segments import (
    RfmCuts,
    Segment,
    SegmentRules,
    classify,
    quintile_cuts,
    rfm_scores,
    score_higher_better,
    score_lower_better,
)

RULES = SegmentRules(high_value_above=1000.0, active_days=90)


@pytest.mark.parametrize(
    ("recency", "frequency", "monetary", "expected"),
    [
        (91, 10, 50_000.0, Segment.AT_RISK),  # big spender gone quiet: At Risk first
        (91, 1, 10.0, Segment.AT_RISK),
        (90, 1, 10.0, Segment.NEW),  # 90 days is still inside the active window
        (0, 1, 5_000.0, Segment.NEW),  # one order is New, whatever its size
        (90, 2, 1000.01, Segment.HIGH_VALUE),
        (0, 2, 1000.0, Segment.REGULAR),  # equal to the cut is not above it
        (30, 5, 10.0, Segment.REGULAR),
        (0, 3, -20.0, Segment.REGULAR),  # net negative after returns: still an active buyer
    ],
)
def test_classify_hits_each_segment_and_boundary(
    recency: int, frequency: int, monetary: float, expected: Segment
) -> None:
    result = classify(recency, frequency, monetary, RULES)
    assert result.segment is expected
    assert result.reason


@pytest.mark.parametrize(("recency", "frequency"), [(-1, 1), (0, 0)])
def test_classify_rejects_impossible_customers(recency: int, frequency: int) -> None:
    with pytest.raises(ValueError):
        classify(recency, frequency, 10.0, RULES)


def test_quintile_cuts_split_distinct_values_into_fifths() -> None:
    values = list(range(1, 11))
    cuts = quintile_cuts(values)
    assert cuts == (2, 4, 6, 8)
    assert [score_higher_better(v, cuts) for v in values] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_recency_scores_reward_recent_customers() -> None:
    recencies = list(range(10))  # 0 = bought on the as-of day
    cuts = quintile_cuts(recencies, descending=True)
    assert cuts == (8, 6, 4, 2)
    assert [score_lower_better(r, cuts) for r in recencies] == [5, 5, 4, 4, 3, 3, 2, 2, 1, 1]


def test_ties_share_the_lower_score() -> None:
    frequencies = [1] * 6 + [2, 3, 4, 5]  # most customers ordered once
    cuts = quintile_cuts(frequencies)
    assert {score_higher_better(1, cuts)} == {1}
    assert score_higher_better(5, cuts) == 5


def test_quintile_cuts_of_nothing_and_rfm_scores() -> None:
    assert quintile_cuts([]) == (0.0, 0.0, 0.0, 0.0)
    cuts = RfmCuts(recency=(300, 120, 60, 20), frequency=(1, 2, 4, 8), monetary=(50, 100, 200, 400))
    assert rfm_scores(10, 9, 1000.0, cuts) == (5, 5, 5)
    assert rfm_scores(400, 1, 10.0, cuts) == (1, 1, 1)
    assert rfm_scores(60, 2, 100.0, cuts) == (3, 2, 2)  # on a cut: the lower score

"""The lab's four customer segments and RFM scores, as pure functions.

Everything here works on plain numbers so the same rules serve three callers: the per-customer
refresh after generation/import, the REST API and the MCP tool ``predict_segment`` (hypothetical
customers). Nothing here touches SQLite.

Inputs, all relative to the dataset's *as of* date (the day of its latest purchase):

- ``recency_days``: days between the customer's last purchase and the as-of date (0 = that day).
- ``frequency``: number of orders (distinct invoices, cancellations excluded).
- ``monetary``: net revenue (sales minus cancellations/returns).

Rules, first match wins (``classify``):

1. **At Risk**  - no purchase in the last ``active_days`` (90) days: ``recency_days > 90``.
   Checked first on purpose: a big spender who went quiet is exactly who the lab wants flagged.
2. **New**      - one order so far, placed within the active window: ``frequency == 1``.
3. **High Value** - repeat buyer in the top quintile by spend: ``monetary > m_cuts[3]`` (M score 5;
   a dataset's settings may lower it to M score 4 or more, the top 40 %: ``high_value_quintile``).
4. **Regular**  - every other active repeat buyer.

RFM scores are dataset quintiles 1-5 (5 = best: most recent, most orders, most money). The cut
points are the values at the 20/40/60/80 % positions of the sorted customers; a value equal to a
cut point gets the lower score, so ties always share one score (one-time buyers all get F=1
rather than being spread by an arbitrary tie-break).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from agent_orchestrator.retail.money import money

ACTIVE_DAYS = 90
"""A customer who bought within this many days of the as-of date is active (not At Risk)."""

HIGH_VALUE_QUINTILE = 5
"""The M score (spend quintile) from which an active repeat buyer is High Value: 5 is the top 20 %."""


class Segment(StrEnum):
    """The lab's segments; the values are the display names used everywhere (API, MCP, DB)."""

    HIGH_VALUE = "High Value"
    REGULAR = "Regular"
    AT_RISK = "At Risk"
    NEW = "New"


SEGMENT_ORDER: tuple[Segment, ...] = (Segment.HIGH_VALUE, Segment.REGULAR, Segment.AT_RISK, Segment.NEW)

Cuts = tuple[float, float, float, float]


@dataclass(frozen=True)
class RfmCuts:
    """Quintile cut points of one dataset, stored in the meta table after each refresh.

    ``frequency`` and ``monetary`` cuts ascend; ``recency`` cuts (days) descend, because a *smaller*
    recency is better: they are the smallest recency of each of the four worse quintiles.
    """

    recency: Cuts
    frequency: Cuts
    monetary: Cuts


@dataclass(frozen=True)
class SegmentRules:
    """Thresholds the rules use; ``high_value_above`` comes from the dataset's monetary cuts
    (the cut below M score ``high_value_quintile``)."""

    high_value_above: float
    active_days: int = ACTIVE_DAYS
    high_value_quintile: int = HIGH_VALUE_QUINTILE

    @property
    def top_percent(self) -> int:
        """The share of customers by spend that the High Value cut keeps above it."""
        return (6 - self.high_value_quintile) * 20

    @classmethod
    def from_cuts(
        cls, cuts: RfmCuts, active_days: int = ACTIVE_DAYS, high_value_quintile: int = HIGH_VALUE_QUINTILE
    ) -> SegmentRules:
        if not 2 <= high_value_quintile <= 5:
            raise ValueError(f"high_value_quintile must be 2-5, not {high_value_quintile}")
        return cls(
            high_value_above=cuts.monetary[high_value_quintile - 2],
            active_days=active_days,
            high_value_quintile=high_value_quintile,
        )


@dataclass(frozen=True)
class Classification:
    """A segment plus the one-line reason, so the assistant can explain its answer."""

    segment: Segment
    reason: str


def classify(
    recency_days: int, frequency: int, monetary: float, rules: SegmentRules, currency: str | None = None
) -> Classification:
    """Apply the documented rules (module docstring) to one customer, real or hypothetical. The
    reason's amounts are in ``currency`` (the dataset's), as every amount the app prints; only the
    segment is kept where nobody reads the reason (``stats``)."""
    if recency_days < 0:
        raise ValueError("recency_days must be >= 0")
    if frequency < 1:
        raise ValueError("frequency must be >= 1 (a customer has at least one order)")
    if recency_days > rules.active_days:
        return Classification(
            Segment.AT_RISK, f"no purchase in the last {rules.active_days} days (recency {recency_days})"
        )
    if frequency == 1:
        return Classification(Segment.NEW, f"first and only order within the last {rules.active_days} days")
    if monetary > rules.high_value_above:
        return Classification(
            Segment.HIGH_VALUE,
            f"active repeat buyer, spend {money(monetary, currency)} above the top-{rules.top_percent}% cut "
            f"{money(rules.high_value_above, currency)}",
        )
    return Classification(
        Segment.REGULAR,
        f"active repeat buyer, spend {money(monetary, currency)} not above the top-{rules.top_percent}% cut "
        f"{money(rules.high_value_above, currency)}",
    )


def quintile_cuts(values: Sequence[float], *, descending: bool = False) -> Cuts:
    """Values at the 20/40/60/80 % boundaries: the last value of each of the four worse quintiles.

    With ``n`` values sorted worst first the k-th cut is ``v[ceil(k*n/5) - 1]``, so for distinct
    values exactly the worst fifth scores 1 and the best fifth scores 5. ``descending=True`` is for
    metrics where smaller is better (recency).
    """
    if not values:
        return (0.0, 0.0, 0.0, 0.0)
    ordered = sorted(values, reverse=descending)
    n = len(ordered)
    return tuple(float(ordered[-(-k * n // 5) - 1]) for k in (1, 2, 3, 4))  # type: ignore[return-value]


def score_higher_better(value: float, cuts: Cuts) -> int:
    """1-5: one plus the number of cut points strictly below ``value`` (ties take the lower score)."""
    return 1 + sum(1 for cut in cuts if value > cut)


def score_lower_better(value: float, cuts: Cuts) -> int:
    """1-5 for recency (descending cuts): one plus the number of cut points strictly above ``value``."""
    return 1 + sum(1 for cut in cuts if value < cut)


def rfm_scores(recency_days: int, frequency: int, monetary: float, cuts: RfmCuts) -> tuple[int, int, int]:
    """(R, F, M) scores of one customer against a dataset's cuts."""
    return (
        score_lower_better(recency_days, cuts.recency),
        score_higher_better(frequency, cuts.frequency),
        score_higher_better(monetary, cuts.monetary),
    )

"""Retail benchmarks: dataset generation and segment summary over the default dataset.

    uv run python bench/bench_retail.py [--runs N] [--keep PATH]

Prints plain ``name: value`` lines. Targets: generation "a few seconds"; the segment summary
<= 50 ms (ratio = median / target, below 1.0 is good). Machines are noisy: medians of N runs.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import median_seconds

from agent_orchestrator.retail import GeneratorConfig, generate_dataset, open_readonly, queries
from agent_orchestrator.retail.models import TransactionFilter
from agent_orchestrator.retail.segments import Segment

SUMMARY_TARGET_S = 0.050


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--keep", type=Path, help="write the dataset here instead of a temp dir")
    args = parser.parse_args()
    config = GeneratorConfig()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "retail.sqlite"
        start = time.perf_counter()
        generate_dataset(path, config)
        generated = time.perf_counter() - start
        print(
            f"generate_default_dataset: {generated:.2f} s "
            f"({config.customers} customers, {config.transactions} transactions, "
            f"{path.stat().st_size / 1e6:.1f} MB)"
        )

        conn = open_readonly(path)
        try:
            summary = median_seconds(lambda: queries.segment_overview(conn), args.runs)
            print(f"segment_summary_median: {summary * 1000:.2f} ms over {args.runs} runs")
            print(f"segment_summary_ratio_to_50ms_target: {summary / SUMMARY_TARGET_S:.3f}")

            def per_request() -> object:  # what one REST/MCP call pays: open, ask, close
                fresh = open_readonly(path)
                try:
                    return queries.segment_overview(fresh)
                finally:
                    fresh.close()

            print(
                f"segment_summary_with_connect_median: {median_seconds(per_request, args.runs) * 1000:.2f} ms"
            )
            customer_id = queries.list_customers(conn, limit=1).items[0].customer_id
            others: dict[str, Callable[[], object]] = {
                "customer_detail": lambda: queries.get_customer(conn, customer_id),
                "customers_page_at_risk": lambda: queries.list_customers(
                    conn, segment=Segment.AT_RISK, limit=50
                ),
                "transactions_page_country_amount": lambda: queries.list_transactions(
                    conn, TransactionFilter(country="Germany", min_amount=50), limit=50
                ),
                "segment_trend_12_months": lambda: queries.segment_trend(conn, Segment.HIGH_VALUE, 12),
            }
            for name, fn in others.items():
                print(f"{name}_median: {median_seconds(fn, max(5, args.runs // 5)) * 1000:.2f} ms")
        finally:
            conn.close()


if __name__ == "__main__":
    main()

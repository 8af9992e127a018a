"""``python -m agent_orchestrator.retail``: create, import into and summarise a retail database.

    generate --db PATH [--seed N --customers N --transactions N] [--force]
    import CSV --db PATH [--mapping FIELD=COLUMN,...] [--delimiter C --decimal C --thousands C
                         --date-format FMT --encoding NAME]
    summary --db PATH
    currency [CODE | --clear] --db PATH

A thin dispatcher over the package functions; progress and errors go to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from agent_orchestrator.errors import AgentOrchestratorError
from agent_orchestrator.home import owner_only_umask
from agent_orchestrator.retail.analysis import dataset_currency, set_currency
from agent_orchestrator.retail.datasets import FIELDS, CsvFormat, inspect_csv
from agent_orchestrator.retail.db import open_readonly, open_readwrite
from agent_orchestrator.retail.generator import GeneratorConfig, ensure_dataset, generate_dataset
from agent_orchestrator.retail.importer import import_online_retail_csv
from agent_orchestrator.retail.progress import StderrProgress
from agent_orchestrator.retail.queries import segment_overview


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agent_orchestrator.retail", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser(
        "generate", help="create the synthetic dataset (only if missing, unless --force)"
    )
    gen.add_argument("--db", type=Path, required=True)
    gen.add_argument("--seed", type=int, default=GeneratorConfig.seed)
    gen.add_argument("--customers", type=int, default=GeneratorConfig.customers)
    gen.add_argument("--transactions", type=int, default=GeneratorConfig.transactions)
    gen.add_argument("--force", action="store_true", help="replace an existing file")
    imp = commands.add_parser("import", help="import a CSV (atomic, idempotent)")
    imp.add_argument("csv", type=Path)
    imp.add_argument("--db", type=Path, required=True)
    imp.add_argument(
        "--mapping",
        type=_mapping,
        help=f"FIELD=COLUMN pairs, fields: {','.join(FIELDS)} (default: Online Retail names)",
    )
    imp.add_argument("--delimiter", help="the column separator (default: detected)")
    imp.add_argument("--decimal", help="the decimal mark (default: detected)")
    imp.add_argument("--thousands", help="the digit-group separator (default: detected)")
    imp.add_argument("--date-format", help="a strptime format such as %%d/%%m/%%Y (default: detected)")
    imp.add_argument("--encoding", help="the file's text encoding (default: detected)")
    summary = commands.add_parser("summary", help="print the segment summaries as JSON")
    summary.add_argument("--db", type=Path, required=True)
    currency = commands.add_parser("currency", help="show or declare the currency the data's amounts are in")
    currency.add_argument("code", nargs="?", help="three-letter ISO code, e.g. GBP")
    currency.add_argument("--clear", action="store_true", help="the data names no currency")
    currency.add_argument("--db", type=Path, required=True)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    owner_only_umask()  # what it writes is owner-only: docs/architecture.md#the-home-is-owner-only
    try:
        if args.command == "generate":
            config = GeneratorConfig(seed=args.seed, customers=args.customers, transactions=args.transactions)
            if args.force:
                generate_dataset(args.db, config, StderrProgress())
            elif not ensure_dataset(args.db, config, StderrProgress()):
                print(f"{args.db} already exists (use --force to replace it)", file=sys.stderr)
        elif args.command == "import":
            result = import_online_retail_csv(
                args.db, args.csv, StderrProgress("retail import"), mapping=args.mapping, fmt=_format(args)
            )
            for error in result.errors:
                print(f"{args.csv}:{error.line}: {error.message}", file=sys.stderr)
            if result.errors_truncated:
                print(f"... {result.skipped - len(result.errors)} more row errors", file=sys.stderr)
            print(
                f"read {result.rows_read} rows: imported {result.imported} "
                f"({result.new_transactions} new, {result.cancellations} cancellation lines), "
                f"skipped {result.skipped}"
            )
        elif args.command == "currency":
            _currency(args.db, None if args.clear else args.code, change=args.clear or args.code is not None)
        else:
            conn = open_readonly(args.db)
            try:
                print(json.dumps(segment_overview(conn).model_dump(mode="json"), indent=2))
            finally:
                conn.close()
    except (AgentOrchestratorError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _mapping(text: str) -> dict[str, str]:
    pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
    if any(len(pair) != 2 or pair[0].strip() not in FIELDS for pair in pairs):
        raise argparse.ArgumentTypeError(f"expected FIELD=COLUMN pairs with fields of {', '.join(FIELDS)}")
    return {field.strip(): column.strip() for field, column in pairs}


def _format(args: argparse.Namespace) -> CsvFormat | None:
    """The detected format with what the options say instead; ``None`` (detect all) without any."""
    given = {
        name: getattr(args, name)
        for name in ("delimiter", "decimal", "thousands", "date_format", "encoding")
        if getattr(args, name) is not None
    }
    if not given:
        return None
    return dataclasses.replace(inspect_csv(args.csv, rows=0).format, **given)


def _currency(db: Path, code: str | None, *, change: bool) -> None:
    conn = open_readwrite(db)
    try:
        if change:
            with conn:
                set_currency(conn, code)
        print(dataset_currency(conn) or "none")
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main())

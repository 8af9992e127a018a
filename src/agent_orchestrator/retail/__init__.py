"""Retail domain: the SQLite store, a realistic dataset generator, a CSV importer, segments.

Typical use by the app::

    from agent_orchestrator.retail import ensure_dataset, StderrProgress
    ensure_dataset(data_dir / "retail.sqlite", progress=StderrProgress())

Readers open the file with ``open_readonly`` and ask ``agent_orchestrator.retail.queries``;
the REST routes are in ``agent_orchestrator.retail.api`` and the MCP server in
``agent_orchestrator.mcp_server``. Segment rules are documented in ``retail.segments``.
"""

from agent_orchestrator.retail.db import open_readonly, open_readwrite
from agent_orchestrator.retail.generator import (
    GeneratorConfig,
    dataset_fingerprint,
    ensure_dataset,
    generate_dataset,
)
from agent_orchestrator.retail.importer import ImportResult, RowError, import_online_retail_csv
from agent_orchestrator.retail.progress import ProgressCallback, StderrProgress
from agent_orchestrator.retail.segments import Segment, SegmentRules, classify

__all__ = [
    "GeneratorConfig",
    "ImportResult",
    "ProgressCallback",
    "RowError",
    "Segment",
    "SegmentRules",
    "StderrProgress",
    "classify",
    "dataset_fingerprint",
    "ensure_dataset",
    "generate_dataset",
    "import_online_retail_csv",
    "open_readonly",
    "open_readwrite",
]

"""The page's "Copy figures" writes values, never formulas (docs/architecture.md#spreadsheet-cells):
``spreadsheet.js`` and ``copy.js`` run under Node, as the browser runs them (ES modules)."""

import json
import shutil
import subprocess

import pytest

from agent_orchestrator.web import STATIC_DIR

FORMULAS = [
    '=HYPERLINK("http://evil.example","Click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
]

SCRIPT = """
const { figuresTable } = await import(process.argv[1] + "/copy.js");
const { tsvCell } = await import(process.argv[1] + "/spreadsheet.js");
const formulas = JSON.parse(process.argv[2]);
const chart = {
  title: "=Revenue by country",
  category: "Country",
  labels: formulas,
  series: [{ label: "@Revenue", values: formulas.map((_, i) => (i % 2 ? -12.5 : 1234.5)) }],
};
const cells = [...formulas, -12.5, "-12.5", "Germany", null, "a\\tb"].map(tsvCell);
console.log(JSON.stringify({ table: figuresTable([chart]), cells }));
"""


def test_copied_figures_escape_every_formula_and_keep_numbers() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed (it is with the Copilot CLI: scripts/bootstrap.sh)")
    folder = (STATIC_DIR / "js").as_uri()
    result = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, folder, json.dumps(FORMULAS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(result.stdout)
    assert out["cells"] == [
        *("'" + cell.replace("\t", " ").replace("\r", " ") for cell in FORMULAS),
        "-12.5",
        "-12.5",
        "Germany",
        "",
        "a b",
    ]
    lines = out["table"].split("\n")
    assert lines[:2] == ["'=Revenue by country", "Country\t'@Revenue"]
    rows = [line.split("\t") for line in lines[2:]]
    assert len(rows) == len(FORMULAS)  # a tab or a line break in a cell splits nothing
    for (label, value), formula, number in zip(rows, FORMULAS, range(len(FORMULAS)), strict=True):
        assert label.startswith("'") and label[1:] == formula.replace("\t", " ").replace("\r", " ")
        assert value == ("-12.5" if number % 2 else "1234.5")

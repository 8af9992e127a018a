"""Lab 05 wall time on the embedded model vs the same run against an instant scripted model.

The scripted run measures what the runtime itself costs (Python start, CLI start, create, close,
resume, metadata); the difference to the embedded run is the model's own time. Both are measured in
this one run, because these machines are shared and noisy.

    uv run python bench/bench_lab.py [--runs 3]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_orchestrator.local_model.weights import resolve_weights
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]


def _run_lab(env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "sdk_labs", "sessions"], env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or "metadata retrieved" not in proc.stdout:
        raise SystemExit(f"lab failed: {proc.stderr.strip().splitlines()[-1:]}")
    return elapsed


def _fmt(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    base_env = clean_environment()
    weights = resolve_weights("0.5b", cache_dir=ROOT / ".data" / "models", progress=True)

    with tempfile.TemporaryDirectory() as home, ScriptedModel() as model:
        models = Path(home) / "models"
        models.mkdir()
        for cached in weights.parent.glob(weights.name + "*"):
            (models / cached.name).symlink_to(cached)
        scripted_env = dict(
            base_env,
            AGENT_ORCHESTRATOR_HOME=home,
            AGENT_PROVIDER_BASE_URL=model.base_url,
            AGENT_MODEL="scripted-model",
        )
        embedded_env = dict(base_env, AGENT_ORCHESTRATOR_HOME=home)
        scripted, embedded = [], []
        for _ in range(runs):  # interleaved, so load changes hit both alike
            scripted.append(_run_lab(scripted_env))
            embedded.append(_run_lab(embedded_env))

    s, e = statistics.median(scripted), statistics.median(embedded)
    print(f"lab runs per route: {runs} (median wall time, whole process)")
    print(f"scripted instant model (runtime overhead): {s:6.2f} s   runs: {_fmt(scripted)}")
    print(f"embedded 0.5B model:                       {e:6.2f} s   runs: {_fmt(embedded)}")
    print(f"model's own share (embedded - scripted):   {e - s:6.2f} s")
    print(f"overhead / embedded wall time:              {s / e:6.2f}")


if __name__ == "__main__":
    main()

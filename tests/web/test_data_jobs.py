"""The upload store and the import job without a web server (docs/architecture.md#the-data-page): a file
is written to disk as it arrives and a refused one leaves nothing; an import runs in its own thread,
one at a time, reports its progress, is audited however it ends, and cancelling it changes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sales_csv import sales_csv

from agent_orchestrator.errors import ImportBusyError, InvalidInputError, NotFoundError
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.retail.datasets import CsvFormat, DatasetLibrary
from agent_orchestrator.retail.datasets.inspect import SAMPLE_BYTES
from agent_orchestrator.sessions import Actor
from agent_orchestrator.sessions.store import AuditLog, User, make_engine, migrate
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.web.import_jobs import ImportJob, ImportJobs
from agent_orchestrator.web.uploads import Upload, Uploads, clean_name

ADMIN = Actor(user=User(1, "alice", datetime.now(UTC), "admin"), client_addr="127.0.0.1")
MAPPING = {
    "invoice": "InvoiceNo",
    "stock_code": "StockCode",
    "description": "Description",
    "quantity": "Quantity",
    "invoiced_at": "InvoiceDate",
    "unit_price": "UnitPrice",
    "customer_id": "CustomerID",
    "country": "Country",
}


async def _chunks(data: bytes, size: int = 7_000) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def _receive(uploads: Uploads, data: bytes, name: str = "sales.csv", owner_id: int = 1) -> Upload:
    return asyncio.run(uploads.receive(_chunks(data), owner_id=owner_id, name=name))


@pytest.fixture
def uploads(tmp_path: Path) -> Uploads:
    return Uploads(tmp_path / "uploads")


@pytest.fixture
def jobs(tmp_path: Path, uploads: Uploads) -> Iterator[tuple[ImportJobs, AuditLog, DatasetLibrary]]:
    generate_dataset(
        tmp_path / "retail.sqlite", GeneratorConfig(seed=7, customers=50, transactions=500, products=40)
    )
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    library = DatasetLibrary(tmp_path)
    audit = AuditLog(engine)
    runner = ImportJobs(library, audit, uploads)
    yield runner, audit, library
    runner.stop()
    library.close()
    engine.dispose()


def _ended(runner: ImportJobs) -> ImportJob:
    def ended() -> ImportJob:
        job = runner.current()
        assert job is not None and job.state != "running"
        return job

    return eventually(ended, timeout=60)


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("C:\\Users\\me\\orders 2024.csv", "orders 2024.csv"),
        ("../../etc/passwd", "passwd"),
        ("..", "upload.csv"),
        ("a\x00b\x1b.csv", "ab.csv"),
        ("", "upload.csv"),
    ],
)
def test_an_uploaded_file_keeps_only_the_last_part_of_its_name(sent: str, kept: str) -> None:
    assert clean_name(sent) == kept


def test_a_file_is_written_as_it_arrives_and_only_its_uploader_can_use_it(
    tmp_path: Path, uploads: Uploads
) -> None:
    data = sales_csv(tmp_path / "in.csv", 300).read_bytes()
    upload = _receive(uploads, data, name="shop/sales.csv")
    assert (upload.name, upload.size, upload.path.read_bytes()) == ("sales.csv", len(data), data)
    assert upload.preview.layout == "Online Retail"
    assert uploads.get(upload.id, 1) is upload
    with pytest.raises(NotFoundError):
        uploads.get(upload.id, 2)  # another admin's upload is not theirs to import
    uploads.discard(upload)
    assert not upload.path.exists()
    with pytest.raises(NotFoundError):
        uploads.get(upload.id, 1)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "sales.csv is empty: expected a CSV file with a header"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 100, "sales.csv is not a CSV file: it holds binary data"),
    ],
)
def test_a_refused_file_is_one_message_and_leaves_nothing(
    uploads: Uploads, tmp_path: Path, data: bytes, message: str
) -> None:
    with pytest.raises(InvalidInputError) as refused:
        _receive(uploads, data)
    assert str(refused.value).startswith(message)
    assert list((tmp_path / "uploads").iterdir()) == []


def test_an_import_runs_in_the_background_reports_progress_and_is_audited(
    tmp_path: Path, uploads: Uploads, jobs
) -> None:
    runner, audit, library = jobs
    upload = _receive(uploads, sales_csv(tmp_path / "in.csv", 400, without_customer={4, 12}).read_bytes())
    started = runner.start(ADMIN, upload, MAPPING, upload.preview.format, "replace")
    assert started.state == "running"
    job = _ended(runner)
    assert job.state == "finished", job.error
    assert job.report is not None and (job.report.imported, job.report.skipped) == (398, 2)
    assert job.progress is not None and job.progress.rows_read == 400
    assert library.facts().version_id == job.report.version_id
    assert library.mapping_for(upload.preview.source_key) is not None  # pre-filled next time
    assert not upload.path.exists()  # the upload is gone once imported
    # Its state is published last: the audit lines are written by then.
    assert [event.action for event in reversed(audit.recent())] == [
        "data_import_start",
        "data_import_done",
        "data_switch",
    ]


def test_a_second_import_is_refused_and_a_cancelled_one_changes_nothing(
    tmp_path: Path, uploads: Uploads, jobs
) -> None:
    runner, audit, library = jobs
    before = library.facts().version_id
    big = sales_csv(tmp_path / "big.csv", 150_000).read_bytes()
    first, second = _receive(uploads, big), _receive(uploads, big)
    job = runner.start(ADMIN, first, MAPPING, first.preview.format, "replace")
    with pytest.raises(ImportBusyError):
        runner.start(ADMIN, second, MAPPING, second.preview.format, "replace")
    with pytest.raises(ImportBusyError):
        runner.refuse_while_running("restore a version")
    runner.cancel(ADMIN, job.id)
    ended = _ended(runner)
    assert (ended.state, ended.error, ended.report) == ("cancelled", None, None)
    assert library.facts().version_id == before
    assert [event.action for event in audit.recent(limit=2)] == ["data_import_cancel", "data_import_start"]
    with pytest.raises(NotFoundError):
        runner.cancel(ADMIN, "no-such-job")


def test_a_mapping_the_library_refuses_fails_the_job_with_its_message(
    tmp_path: Path, uploads: Uploads, jobs
) -> None:
    runner, audit, _ = jobs
    upload = _receive(uploads, sales_csv(tmp_path / "in.csv", 50).read_bytes())
    runner.start(ADMIN, upload, MAPPING, CsvFormat(date_format="%d.%m.%Y"), "append")
    job = _ended(runner)
    assert job.state == "failed" and job.error and "\n" not in job.error
    assert audit.recent(limit=1)[0].action == "data_import_failed"


def test_a_field_past_the_readers_limit_fails_the_import_naming_its_line(
    tmp_path: Path, uploads: Uploads, jobs
) -> None:
    """Past the preview's first 256 KB: the upload is read, the import stops at the line, says which,
    and changes nothing."""
    runner, audit, library = jobs
    before = library.facts().version_id
    lines = sales_csv(tmp_path / "in.csv", 5_000).read_text().splitlines(keepends=True)
    assert len("".join(lines[:4_000])) > SAMPLE_BYTES
    cells = lines[4_000].split(",")
    cells[2] = "x" * 200_000  # the description of the file's line 4,001
    lines[4_000] = ",".join(cells)
    upload = _receive(uploads, "".join(lines).encode())
    runner.start(ADMIN, upload, MAPPING, upload.preview.format, "replace")
    job = _ended(runner)
    assert (job.state, job.error) == (
        "failed",
        "line 4001 of sales.csv has a field longer than 128 KB: not a CSV file of sales lines, "
        'or a quote (") left open there',
    )
    assert library.facts().version_id == before
    assert audit.recent(limit=1)[0].action == "data_import_failed"


def test_a_job_that_ended_leaves_nothing_for_the_next_start_to_report(
    tmp_path: Path, uploads: Uploads, jobs
) -> None:
    """The running job is written down until it ends (a crash is reported at the next start:
    tests/system/test_restart_recovery.py); one that ended, however, is not reported again."""
    _, audit, library = jobs
    state = tmp_path / "import-job.json"
    runner = ImportJobs(library, audit, uploads, state_file=state)
    upload = _receive(uploads, sales_csv(tmp_path / "in.csv", 50_000).read_bytes())
    runner.start(ADMIN, upload, MAPPING, upload.preview.format, "replace")
    assert state.is_file()
    assert _ended(runner).state == "finished"
    assert not state.exists()
    restarted = ImportJobs(library, audit, uploads, state_file=state)
    assert restarted.current() is None
    assert [event.action for event in audit.recent(limit=3)] == [
        "data_switch",
        "data_import_done",
        "data_import_start",
    ]

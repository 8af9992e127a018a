"""The dataset library: versions of the retail data, built from uploads, one of them active.

Every reader asks :meth:`DatasetLibrary.current_path` at the time of the call and opens that file;
an import builds a new immutable version beside the active one and switches the pointer only when
the version is complete, so a chat keeps reading the old data during an import and reads the new
data from its next call (docs/architecture.md#dataset-versions). The library knows no users or
sessions: an actor is a name it records.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from sqlalchemy import Engine, create_engine

from agent_orchestrator.errors import (
    ImportCancelledError,
    InvalidInputError,
    NotFoundError,
    RetailDatabaseError,
)
from agent_orchestrator.retail.analysis import dataset_currency, set_currency
from agent_orchestrator.retail.datasets.build import building, carry_settings, finish
from agent_orchestrator.retail.datasets.cache import SUFFIXES, VersionFiles, file_chunks, file_sha256
from agent_orchestrator.retail.datasets.formats import (
    CsvFormat,
    c_marks_cancellations,
    missing_fields,
)
from agent_orchestrator.retail.datasets.inspect import date_formats_for, inspect_csv
from agent_orchestrator.retail.datasets.load import LoadCounts, load, open_csv
from agent_orchestrator.retail.datasets.models import DatasetFacts, DatasetVersion, ImportReport, SegmentRules
from agent_orchestrator.retail.datasets.progress import ImportProgress, ProgressReporter
from agent_orchestrator.retail.datasets.rows import line_parser
from agent_orchestrator.retail.datasets.semantic import (
    ModelChanges,
    changed_model,
    check_model_rows,
    drop_semantic,
    editable_model,
    keep_model,
    semantic_source,
    store_semantic,
)
from agent_orchestrator.retail.datasets.skipped import SkippedRows
from agent_orchestrator.retail.datasets.store import VersionRecord, VersionStore
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.retail.schema import create_indexes, get_meta, set_meta
from agent_orchestrator.retail.stats import refresh_customer_stats
from agent_orchestrator.semantic import SemanticModel

log = logging.getLogger(__name__)

DEFAULT_ID: Final = "default"
"""Version zero: the install's own ``<data>/retail.sqlite`` (generated), active until an import."""

KEEP_VERSIONS = 5
"""Versions kept besides version zero: the active one and the last few to restore."""

CHECK_INTERVAL = 1.0
"""Seconds between two reads of the shared pointer by :meth:`DatasetLibrary.current_path`."""

MAX_ACTIVE_DAYS = 3650


class _Unset:
    """The type of :data:`UNSET`: "leave this setting as it is" where ``None`` means "none"."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


class DatasetLibrary:
    """Versions under ``<data>/datasets/``, their records in ``engine`` (PostgreSQL: shared by
    several servers) or in a SQLite file of their own, and ``<data>/retail.sqlite`` as version zero.

    Thread-safe; every method but :meth:`current_path` and :meth:`current_version_id` may block for
    a while (run it in a worker thread from async code).
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        engine: Engine | None = None,
        keep: int = KEEP_VERSIONS,
        check_interval: float = CHECK_INTERVAL,
    ) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1 (the active version)")
        self.default_path = data_dir / "retail.sqlite"
        self.files = VersionFiles(data_dir / "datasets")
        self._own_engine = engine is None
        self.store = VersionStore(
            engine or create_engine(f"sqlite:///{self.files.folder / 'versions.sqlite'}")
        )
        self.store.ensure_tables()
        self.keep = keep
        self._interval = check_interval
        self._refreshing = threading.Lock()
        self._importing = threading.Lock()
        self._active: str | None = None  # version id the cached path is of ("" for version zero)
        self._path: Path | None = None
        self._checked = 0.0
        self._facts: dict[str, DatasetFacts] = {}

    def close(self) -> None:
        """Release the store's connections if the library made its engine."""
        if self._own_engine:
            self.store.engine.dispose()

    # --- what readers open -------------------------------------------------------------------

    def current_path(self) -> Path:
        """The active version's local file: what every reader opens, at the time of the call.

        Reads the pointer at most once per ``check_interval``; a switch made on another server is
        materialised here (downloaded and verified) before this returns the new path. While one
        thread materialises, others keep getting the old path rather than waiting.
        """
        if self._path is not None and time.monotonic() - self._checked < self._interval:
            return self._path
        if not self._refreshing.acquire(blocking=self._path is None):
            assert self._path is not None
            return self._path
        try:
            self._refresh()
        except RetailDatabaseError:
            raise
        except Exception as error:  # the shared store is unreachable: keep reading what we have
            if self._path is None:
                raise RetailDatabaseError(f"the dataset store is unavailable: {error}") from error
            log.warning("dataset pointer not checked (%s); reading version %s", error, self._active)
            self._checked = time.monotonic()
        finally:
            self._refreshing.release()
        assert self._path is not None
        return self._path

    def current_version_id(self) -> str:
        """The id of the version :meth:`current_path` returns."""
        self.current_path()
        return self._active or DEFAULT_ID

    def _base(self) -> tuple[Path, str]:
        """The active version's file and id (``""`` for version zero) read together, for a new
        version built from it: the id is the file's, whatever a concurrent switch does meanwhile."""
        path = self.current_path()
        return path, "" if path == self.default_path else path.name.removesuffix(SUFFIXES["db"])

    def _refresh(self) -> None:
        active = self.store.active_id() or ""
        if active != self._active or self._path is None:
            self._path = self._local_db(active)
            if self._active is not None:
                log.info("dataset switched to version %s", active or DEFAULT_ID)
                self._drop_unlisted()
            self._active = active
        self._checked = time.monotonic()

    def _local_db(self, version_id: str) -> Path:
        """The version's file on this server, materialised from the shared store if needed."""
        if not version_id:
            return self.default_path
        path = self.files.path(version_id)
        if path.is_file():
            return path
        record = self.store.record(version_id)
        if record is None or not self.store.shared:
            raise RetailDatabaseError(f"the file of dataset version {version_id} is missing ({path})")
        return self.files.materialise(
            version_id, "db", self.store.blob_chunks(version_id, "db"), record.sha256
        )

    def _drop_unlisted(self) -> None:
        """Delete local copies of versions the store no longer lists (pruned, here or elsewhere)."""
        listed = {record.id for record in self.store.records()}
        for version_id in self.files.local_ids() - listed:
            self.files.remove(version_id)

    def _switched_to(self, version_id: str, path: Path) -> None:
        """This server switches at once after its own change (others within ``check_interval``)."""
        with self._refreshing:
            self._active, self._path, self._checked = version_id, path, time.monotonic()

    # --- imports -----------------------------------------------------------------------------

    def import_csv(
        self,
        path: Path,
        mapping: dict[str, str],
        fmt: CsvFormat,
        *,
        mode: Literal["replace", "append"],
        actor: str,
        source_name: str,
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> ImportReport:
        """Import ``path`` into a new version (``replace``: only this file's rows; ``append``: the
        active version's rows plus this file's, a line of the same invoice, stock code and n
        replacing its old self) and make it the active one when it is complete.

        Blocking. ``progress`` is called from a reporter thread about twice a second.
        ``InvalidInputError`` for a mapping or file that cannot be imported, and
        ``ImportCancelledError`` when ``cancel`` is set: in both cases nothing changes.
        """
        if mode not in ("replace", "append"):
            raise InvalidInputError(f"the import mode is replace or append, not {mode!r}")
        started = time.monotonic()
        with self._importing:
            base, base_id = self._base()
            header, date_formats = self._check(path, mapping, fmt)
            version_id = _new_id()
            target = self.files.building(version_id)
            skipped_target = self.files.building(version_id, "skipped")
            counts = LoadCounts()
            c_cancels = c_marks_cancellations(header, mapping)
            parse = line_parser(header, mapping, fmt, date_formats, c_cancels=c_cancels)
            try:
                with ProgressReporter(progress, counts, path.stat().st_size) as reporter:
                    with (
                        SkippedRows(skipped_target, header) as skipped,
                        open_csv(path, fmt) as (binary, reader),
                        building(target, base=base if mode == "append" else None) as conn,
                    ):
                        step = _checkpoint(cancel)
                        next(reader, None)  # the header, checked above
                        if mode == "replace":
                            carry_settings(conn, base)
                        load(
                            conn,
                            reader,
                            binary,
                            parse,
                            upsert=mode == "append",
                            counts=counts,
                            on_skip=skipped,
                            on_batch=step,
                        )
                        if not counts.imported:
                            raise InvalidInputError(_nothing_imported(path.name, counts))
                        reporter.watch(conn, cancel)
                        with _interruptible(cancel):
                            if mode == "replace":
                                reporter.phase = "indexing"
                                create_indexes(conn, step)
                            reporter.phase = "statistics"
                            finish(conn, source="imported")
                        if mode == "replace":
                            conn.execute("PRAGMA shrink_memory")  # the index build's cache, before DuckDB's
                            name = get_meta(conn, "dataset_name") or Path(source_name).stem
                            kept = store_semantic(conn, path, mapping, fmt, date_formats, dataset=name)
                            if counts.rows_only and not kept:
                                raise InvalidInputError(
                                    f"{path.name} names no customer or no product, so only its own columns "
                                    "can answer it, and they could not be read as a table"
                                )
                        elif counts.rows_only:
                            raise InvalidInputError(
                                "a file without a customer or a product column can replace the data, "
                                "not be appended to it"
                            )
                        else:
                            drop_semantic(conn)
                        step()
                        reporter.phase = "storing"  # from the commit on
                    report = self._report(target, version_id, mode, counts, started)
                    os.replace(skipped_target, self.files.path(version_id, "skipped"))
                    final = self.files.path(version_id)
                    os.replace(target, final)
                    self._publish(
                        final, version_id, base_id, actor, source_name, mode, counts.imported, report
                    )
                    report.seconds = round(time.monotonic() - started, 3)
                    reporter.finish()
            finally:
                target.unlink(missing_ok=True)
                skipped_target.unlink(missing_ok=True)
        return report

    def _check(self, path: Path, mapping: dict[str, str], fmt: CsvFormat) -> tuple[list[str], list[str]]:
        """The file's header and the date formats to read it with, or ``InvalidInputError``."""
        # Binary, empty or header-less files end here, and a date format that reads none of the dates.
        preview = inspect_csv(path, rows=0, given=fmt, date_column=mapping.get("invoiced_at"))
        with open_csv(path, fmt) as (_, reader):
            header = [name.strip() for name in next(reader, [])]
        unknown = sorted({column for column in mapping.values() if column and column not in header})
        if unknown:
            raise InvalidInputError(
                f"{path.name} has no column {', '.join(map(repr, unknown))}: its header is "
                f"{','.join(header)[:200]!r}"
            )
        if missing := missing_fields(mapping):
            raise InvalidInputError(f"choose the column for {', '.join(missing)}")
        return header, date_formats_for(fmt, preview, path.name)

    def _report(
        self, db: Path, version_id: str, mode: str, counts: LoadCounts, started: float
    ) -> ImportReport:
        conn = open_readonly(db)
        try:
            customers, products, countries, first, last = conn.execute(
                "SELECT (SELECT COUNT(*) FROM customers), (SELECT COUNT(*) FROM products), "
                "(SELECT COUNT(DISTINCT country) FROM customers), "
                "(SELECT MIN(invoiced_at) FROM transactions), (SELECT MAX(invoiced_at) FROM transactions)"
            ).fetchone()
        finally:
            conn.close()
        return ImportReport(
            version_id=version_id,
            mode=mode,
            rows_read=counts.rows_read,
            imported=counts.imported,
            skipped=counts.skipped,
            skipped_by_reason=dict(counts.skipped_by_reason),
            cancellations=counts.cancellations,
            customers=customers,
            products=products,
            countries=countries,
            first_date=first[:10] if first else None,
            last_date=last[:10] if last else None,
            seconds=round(time.monotonic() - started, 3),
        )

    def _publish(
        self,
        final: Path,
        version_id: str,
        built_on: str,
        actor: str,
        source_name: str,
        mode: str,
        rows: int,
        report: ImportReport | None,
    ) -> None:
        """Record the finished version, make it active, prune, and switch this server to it; built
        from a version that is no longer the active one, ``DatasetChangedError`` instead."""
        record = VersionRecord(
            id=version_id,
            created_at=datetime.now(UTC),
            created_by=actor,
            source_name=source_name,
            mode=mode,
            rows=rows,
            sha256=file_sha256(final),
            size=final.stat().st_size,
            report={} if report is None else dataclasses.asdict(report),
        )
        blobs = {}
        if self.store.shared:
            blobs["db"] = file_chunks(final)
            skipped = self.files.path(version_id, "skipped")
            if skipped.is_file():
                blobs["skipped"] = file_chunks(skipped)
        try:
            dropped = self.store.add(record, blobs, activate=True, keep=self.keep, built_on=built_on)
        except BaseException:
            self.files.remove(version_id)
            raise
        self._switched_to(version_id, final)
        for old in dropped:
            self.files.remove(old)

    # --- versions ----------------------------------------------------------------------------

    def versions(self) -> list[DatasetVersion]:
        """Newest first: the kept versions, then version zero (if this install has one)."""
        active = self.store.active_id() or ""
        listed = [
            DatasetVersion(r.id, r.created_at, r.created_by, r.source_name, r.mode, r.rows, r.id == active)
            for r in self.store.records()
        ]
        if self.default_path.is_file():
            listed.append(self._default_version(active == ""))
        return listed

    def _default_version(self, active: bool) -> DatasetVersion:
        created = datetime.fromtimestamp(self.default_path.stat().st_mtime, UTC)
        conn = open_readonly(self.default_path)
        try:
            rows = conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
            source = get_meta(conn, "source") or "generated"
        finally:
            conn.close()
        return DatasetVersion(DEFAULT_ID, created, "system", source, "default", rows, active)

    def activate(self, version_id: str, actor: str) -> DatasetVersion:
        """Make a kept version (or ``default``) the active one: a restore. ``NotFoundError`` for an
        id that is not kept."""
        if version_id == DEFAULT_ID:
            if not self.default_path.is_file():
                raise NotFoundError("this install has no default dataset")
            self.store.point_at_default(actor)
            self._switched_to("", self.default_path)
        else:
            if self.store.record(version_id) is None:
                raise NotFoundError(f"no dataset version {version_id!r} (only the last {self.keep} are kept)")
            path = self._local_db(version_id)  # materialised before the switch
            if not self.store.activate(version_id, actor):
                raise NotFoundError(f"no dataset version {version_id!r} (only the last {self.keep} are kept)")
            self._switched_to(version_id, path)
        found = next(v for v in self.versions() if v.id == version_id)
        return found

    def skipped_rows_path(self, version_id: str) -> Path:
        """The CSV of every row the version's import skipped (materialised here if need be)."""
        path = self.files.path(version_id, "skipped")
        if path.is_file():
            return path
        record = self.store.record(version_id) if version_id != DEFAULT_ID else None
        if record is None or record.mode not in ("replace", "append"):
            raise NotFoundError(f"dataset version {version_id!r} has no skipped rows (it was not imported)")
        if not self.store.shared:
            raise NotFoundError(f"the skipped rows of dataset version {version_id} are gone")
        return self.files.materialise(
            version_id, "skipped", self.store.blob_chunks(version_id, "skipped"), None
        )

    # --- mappings ----------------------------------------------------------------------------

    def remember_mapping(self, source_key: str, mapping: dict[str, str], fmt: CsvFormat) -> None:
        """Keep the mapping and format confirmed for a source (a header), for its next upload."""
        self.store.remember_mapping(source_key, mapping, dataclasses.asdict(fmt))

    def mapping_for(self, source_key: str) -> tuple[dict[str, str], CsvFormat] | None:
        found = self.store.mapping_for(source_key)
        if found is None:
            return None
        mapping, fmt = found
        known = {f.name for f in dataclasses.fields(CsvFormat)}
        return mapping, CsvFormat(**{k: v for k, v in fmt.items() if k in known})

    # --- facts and settings ------------------------------------------------------------------

    def facts(self) -> DatasetFacts:
        """The active version's name, currency, size, dates, last import and segment rules."""
        path = self.current_path()
        version_id = self._active or DEFAULT_ID
        cached = self._facts.get(version_id)  # versions never change: cache by id
        if cached is not None:
            return cached
        conn = open_readonly(path)
        try:
            name, currency = get_meta(conn, "dataset_name"), dataset_currency(conn)
            active_days, quintile = get_meta(conn, "active_days"), get_meta(conn, "high_value_quintile")
            rows, customers, products, countries, first, last = conn.execute(
                "SELECT (SELECT COUNT(*) FROM transactions), (SELECT COUNT(*) FROM customers), "
                "(SELECT COUNT(*) FROM products), (SELECT COUNT(DISTINCT country) FROM customers), "
                "(SELECT MIN(invoiced_at) FROM transactions), (SELECT MAX(invoiced_at) FROM transactions)"
            ).fetchone()
        finally:
            conn.close()
        records = self.store.records()
        imports = [r for r in records if r.mode in ("replace", "append")]
        current = next((r for r in records if r.id == version_id), None)
        default_rules = SegmentRules()
        facts = DatasetFacts(
            name=name or (current.source_name if current else "Sample shop (generated)"),
            currency=currency,
            first_date=first[:10] if first else None,
            last_date=last[:10] if last else None,
            rows=rows,
            customers=customers,
            products=products,
            countries=countries,
            last_import_at=imports[0].created_at if imports else None,
            last_import_by=imports[0].created_by if imports else None,
            version_id=version_id,
            segment_rules=SegmentRules(
                active_days=int(active_days) if active_days else default_rules.active_days,
                high_value_quintile=int(quintile) if quintile else default_rules.high_value_quintile,
            ),
        )
        self._facts[version_id] = facts
        return facts

    def update_settings(
        self,
        actor: str,
        *,
        name: str | None = None,
        currency: str | _Unset | None = UNSET,
        segment_rules: SegmentRules | None = None,
    ) -> DatasetFacts:
        """Change the dataset's settings: a new version (a copy of the active one with the new
        settings, its segments recomputed when the rules change), made active at once; the old one
        stays restorable. Nothing given, or nothing different: no new version."""
        current = self.facts()
        changes: dict[str, str | None] = {}
        if name is not None and name.strip() != current.name:
            if not name.strip() or len(name.strip()) > 200:
                raise InvalidInputError("a dataset name is 1 to 200 characters")
            changes["dataset_name"] = name.strip()
        if not isinstance(currency, _Unset):
            cleaned = currency.strip().upper() if currency else None
            if cleaned != current.currency:
                changes["currency"] = cleaned
        if segment_rules is not None and segment_rules != current.segment_rules:
            _check_rules(segment_rules)
            changes["active_days"] = str(segment_rules.active_days)
            changes["high_value_quintile"] = str(segment_rules.high_value_quintile)
        if not changes:
            return current
        with self._importing:
            base, base_id = self._base()
            version_id = _new_id()
            target = self.files.building(version_id)
            try:
                with building(target, base=base) as conn:
                    for key, value in changes.items():
                        if key == "currency":
                            try:
                                set_currency(conn, value)
                            except ValueError as error:
                                raise InvalidInputError(str(error)) from None
                        else:
                            assert value is not None
                            set_meta(conn, key, value)
                    if "active_days" in changes:
                        refresh_customer_stats(conn)
                final = self.files.path(version_id)
                os.replace(target, final)
                source = next((v.source_name for v in self.versions() if v.active), "settings")
                self._publish(final, version_id, base_id, actor, source, "settings", current.rows, None)
            finally:
                target.unlink(missing_ok=True)
        return self.facts()

    def update_model(self, actor: str, changes: ModelChanges) -> SemanticModel:
        """Change the roles, labels and synonyms of the active version's columns and metrics, as an
        admin confirms them on the Data page: a new version, made as a settings change is (a copy of
        the active file with the new model, published and active at once; the old one stays
        restorable), so every reader follows it and a restore undoes it.

        The new model is validated as a whole and against the version's rows before anything is
        written: a column whose values cannot be what it is made (text as a measure, a number as a
        date) is one ``InvalidInputError`` naming it, and nothing changes. A version that kept no
        model (the generated data, an append) keeps the one it is answered with now, changed, and
        its rows with it. Nothing different: no new version. Returns the model now answered with.
        """
        with self._importing:
            base, base_id = self._base()
            current, rows, stored = editable_model(base)
            changed = changed_model(current, changes)
            if changed == current:
                return semantic_source(base)[0]
            check_model_rows(changed, rows, current)
            lines = self.facts().rows
            version_id = _new_id()
            target = self.files.building(version_id)
            try:
                with building(target, base=base) as conn:
                    keep_model(conn, changed, None if stored else rows)
                final = self.files.path(version_id)
                os.replace(target, final)
                source = next((v.source_name for v in self.versions() if v.active), "model")
                self._publish(final, version_id, base_id, actor, source, "model", lines, None)
            finally:
                target.unlink(missing_ok=True)
        return semantic_source(final)[0]


def _new_id() -> str:
    """Sortable by time (a directory listing reads in order) and unique across servers."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(4)}"


def _checkpoint(cancel: threading.Event | None) -> Callable[[], None]:
    def step() -> None:
        if cancel is not None and cancel.is_set():
            raise ImportCancelledError("the import was cancelled; the dataset is unchanged")

    return step


@contextmanager
def _interruptible(cancel: threading.Event | None) -> Iterator[None]:
    """A statement the progress handler interrupted because of ``cancel`` is the import's cancel."""
    try:
        yield
    except sqlite3.OperationalError:
        _checkpoint(cancel)()
        raise


def _nothing_imported(name: str, counts: LoadCounts) -> str:
    reasons = sorted(counts.skipped_by_reason.items(), key=lambda item: -item[1])
    why = ", ".join(f"{reason}: {n}" for reason, n in reasons[:3])
    return f"no row of {name} could be imported ({counts.rows_read} read; {why or 'no data rows'})"


def _check_rules(rules: SegmentRules) -> None:
    if not 1 <= rules.active_days <= MAX_ACTIVE_DAYS:
        raise InvalidInputError(f"active days must be 1 to {MAX_ACTIVE_DAYS}, not {rules.active_days}")
    if not 2 <= rules.high_value_quintile <= 5:
        raise InvalidInputError(f"the High Value quintile must be 2 to 5, not {rules.high_value_quintile}")

"""``python -m agent_orchestrator.sessions``: operate on stored sessions.

python -m agent_orchestrator.sessions export ID [--user NAME] [--markdown] [--out FILE]  (JSON or Markdown)
python -m agent_orchestrator.sessions open-export FILE                (a sealed export, as JSON)
python -m agent_orchestrator.sessions import FILE --user NAME     (our JSON or ChatGPT conversations.json)
python -m agent_orchestrator.sessions reindex                     (rebuild the search index from the logs)
python -m agent_orchestrator.sessions purge --older-than DAYS [--dry-run]
python -m agent_orchestrator.sessions rotate-keys                     (re-wrap data keys, current master key)
python -m agent_orchestrator.sessions seal-existing          (seal what was stored before the master key)

Where: ``AGENT_ORCHESTRATOR_HOME`` (data dir, default ``.data``) and ``DATABASE_URL`` (PostgreSQL: shared
mode, files in the same database), as for the web app. Errors are one ``error: ...`` line, exit 1.

Session ids are per owner (docs/architecture.md#session-ids): ``export`` takes the owner's public id
with ``--user``, or an id that only one session has; what the commands print names a session by its
public id and its owner's user id.
"""

import argparse
import asyncio
import os
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from agent_orchestrator.home import owner_only_umask
from agent_orchestrator.settings import Settings, load_settings

if TYPE_CHECKING:
    from agent_orchestrator.sessions.composition import Storage
    from agent_orchestrator.sessions.store import SessionRecord


def _storage(settings: Settings) -> AbstractAsyncContextManager["Storage"]:
    """The deployment's catalog (migrated), cipher and session files, opened as the web app opens them
    (decrypting and crypto-erasing alike); shared mode when the catalog is PostgreSQL."""
    from agent_orchestrator.sessions.composition import open_storage
    from agent_orchestrator.sessions.files.deployment import shared_store

    return open_storage(settings.web, shared_store(settings.database_url))


async def _rotate_keys(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.errors import InvalidInputError
    from agent_orchestrator.sessions.crypto import open_cipher

    cipher = await asyncio.to_thread(open_cipher, settings.web)
    if cipher is None:
        raise InvalidInputError("No master key is configured (AGENT_MASTER_KEY or AGENT_MASTER_KEY_FILE).")
    try:
        count = await asyncio.to_thread(cipher.keys.rotate)
    finally:
        cipher.close()
    print(f"Re-wrapped {count} session key(s) under master key {cipher.keys.provider.current_id}.")
    return 0


async def _seal_existing(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.errors import InvalidInputError
    from agent_orchestrator.sessions.ops.admin import reindex_search
    from agent_orchestrator.sessions.ops.sealing import seal_existing

    async with _storage(settings) as storage:
        engine, files, cipher = storage.engine, storage.files, storage.cipher
        if cipher is None:
            raise InvalidInputError(
                "No master key is configured (AGENT_MASTER_KEY or AGENT_MASTER_KEY_FILE)."
            )
        report = await seal_existing(engine, files, cipher, data_dir=settings.data_dir)
        # Titles, previews and search rows kept in clear: sealed, and the index rebuilt blind.
        indexed = await reindex_search(engine, files, cipher)
    for session_id in report.busy:
        print(f"skipped {session_id}: a turn is running")
    for session_id in report.conflicts:
        print(f"skipped {session_id}: its clear and sealed copies differ; both left as they are")
    summary = (
        f"Sealed {len(report.sealed)} session(s); {len(report.already)} already sealed; "
        f"skipped {len(report.busy)} busy"
    )
    if report.conflicts:
        summary += f" and {len(report.conflicts)} in conflict"
    if report.busy:
        summary += "; run again for the skipped ones"
    print(summary + ".")
    print(f"Titles, previews and search rows of {indexed} session(s) sealed.")
    return 0


async def _export(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.sessions.crypto.exports import seal_export
    from agent_orchestrator.sessions.ids import validate_session_id
    from agent_orchestrator.sessions.ops.admin import export_json, export_record, find_session

    name = validate_session_id(args.session_id)
    async with _storage(settings) as storage:
        engine, cipher = storage.engine, storage.cipher
        record = await asyncio.to_thread(find_session, engine, name, username=args.user, sealer=cipher)
        exported = await export_record(engine, storage.files, record, markdown=args.markdown)
        text = exported if isinstance(exported, str) else export_json(exported)
        # On disk, with encryption at rest, the export is sealed with the session's key (its
        # runtime id's): it is readable (open-export) only while the session exists.
        sealed = None
        if args.out is not None and cipher is not None:
            sealed = await asyncio.to_thread(seal_export, cipher.keys, record.id, text)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    # Owner-only: the export holds the whole conversation.
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(sealed if sealed is not None else text.encode())
    how = " (sealed with the session's key; read it with open-export)" if sealed is not None else ""
    print(f"Exported session {record.public_id} to {args.out}{how}.", file=sys.stderr)
    return 0


async def _open_export(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.errors import InvalidInputError
    from agent_orchestrator.sessions.crypto import open_cipher
    from agent_orchestrator.sessions.crypto.exports import open_export

    cipher = await asyncio.to_thread(open_cipher, settings.web)
    if cipher is None:
        raise InvalidInputError("No master key is configured (AGENT_MASTER_KEY or AGENT_MASTER_KEY_FILE).")
    try:
        sealed = args.file.read_bytes()
        sys.stdout.write(await asyncio.to_thread(open_export, cipher.keys, sealed))
    finally:
        cipher.close()
    return 0


async def _import(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.sessions.ops.admin import import_for_user

    data = args.file.read_bytes()
    async with _storage(settings) as storage:  # sealed, with a master key, as the web app's
        records = await import_for_user(storage, settings, args.user, data)
    for record in records:
        print(f"imported {record.public_id} ({record.turn_count} turns): {record.title}")
    print(f"Imported {len(records)} conversation(s) for {args.user}.")
    return 0


async def _reindex(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.sessions.ops.admin import reindex_search

    async with _storage(settings) as storage:
        count = await reindex_search(storage.engine, storage.files, storage.cipher)
    print(f"Indexed {count} session(s) for search.")
    return 0


async def _purge(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.sessions.ops.admin import purge_sessions

    async with _storage(settings) as storage:
        report = await purge_sessions(storage.engine, storage.files, args.older_than, dry_run=args.dry_run)
    verb = "would delete" if report.dry_run else "deleted"
    for record in report.deleted:
        print(f"{verb} {_named(record)} (last active {record.updated_at:%Y-%m-%d %H:%M} UTC)")
    for record in report.busy:
        print(f"skipped {_named(record)}: a turn is running")
    summary = (
        f"{'Would delete' if report.dry_run else 'Deleted'} {len(report.deleted)} session(s) "
        f"not updated for {report.older_than_days} day(s); skipped {len(report.busy)} busy"
    )
    if report.dry_run:
        summary += "; dry run, nothing deleted"
    if report.limit_reached:
        summary += "; more remain, run again"
    print(summary + ".")
    return 0


def _named(record: "SessionRecord") -> str:
    """A session as an operator reads it: its public id is its owner's, so the owner is named too."""
    return f"{record.public_id} of user {record.owner_id}"


def _days(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of days, got {text!r}") from None
    if days < 1:
        raise argparse.ArgumentTypeError("expected at least 1 day")
    return days


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one ``error: ...`` line too (``--help`` still shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m agent_orchestrator.sessions")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="one session as JSON: catalog row, transcript, event log")
    export.add_argument("session_id", metavar="ID")
    export.add_argument("--user", metavar="NAME", help="the session's owner (ids are per owner)")
    export.add_argument("--out", type=Path, metavar="FILE", help="write here (owner-only) instead of stdout")
    export.add_argument("--markdown", action="store_true", help="the readable conversation, not our JSON")
    export.set_defaults(func=_export)
    importer = commands.add_parser(
        "import", help="our JSON export or a ChatGPT conversations.json, as new sessions"
    )
    importer.add_argument("file", type=Path, metavar="FILE")
    importer.add_argument("--user", required=True, metavar="NAME", help="who will own the imported sessions")
    importer.set_defaults(func=_import)
    reindex = commands.add_parser("reindex", help="rebuild the search index from every session's event log")
    reindex.set_defaults(func=_reindex)
    purge = commands.add_parser("purge", help="delete sessions not updated for DAYS days (audited)")
    purge.add_argument("--older-than", type=_days, required=True, metavar="DAYS")
    purge.add_argument("--dry-run", action="store_true", help="list what would go; delete nothing")
    purge.set_defaults(func=_purge)
    opener = commands.add_parser("open-export", help="print a sealed export (while its session exists)")
    opener.add_argument("file", type=Path, metavar="FILE")
    opener.set_defaults(func=_open_export)
    rotate = commands.add_parser(
        "rotate-keys", help="re-wrap every session's data key under the current master key"
    )
    rotate.set_defaults(func=_rotate_keys)
    seal = commands.add_parser(
        "seal-existing",
        help="seal every session stored in clear before the master key was set (idempotent)",
    )
    seal.set_defaults(func=_seal_existing)
    args = parser.parse_args(argv)
    owner_only_umask()  # docs/architecture.md#the-home-is-owner-only

    from sqlalchemy.exc import SQLAlchemyError

    from agent_orchestrator.errors import AgentOrchestratorError

    try:
        return asyncio.run(args.func(args, load_settings()))
    except (AgentOrchestratorError, ValueError, OSError, SQLAlchemyError) as error:
        print(f"error: {_one_line(error)}", file=sys.stderr)
        return 1


def _one_line(error: BaseException) -> str:
    """The first line of the error (SQLAlchemy appends the statement and a help link), whitespace folded."""
    from sqlalchemy.exc import DBAPIError

    source = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    first = next((line for line in str(source).splitlines() if line.strip()), type(source).__name__)
    return " ".join(first.split())

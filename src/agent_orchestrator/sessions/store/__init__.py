"""The persistent data layer for sessions: the catalog, the audit log, leases and fencing, user
accounts and the login throttle, the usage ledger, the live-event feed, the one-statement turn end,
job locks, liveness checks and the schema's migrations.

SQLAlchemy Core over SQLite (embedded default) or PostgreSQL (shared by many app servers)::

    from agent_orchestrator.sessions.store import make_engine, migrate, SessionCatalog

    engine = make_engine(settings.database_url)   # agent_orchestrator.settings
    migrate(engine)
    catalog = SessionCatalog(engine)

All calls are synchronous and short; async callers run them in a thread pool.
"""

from agent_orchestrator.sessions.store.audit import AUDIT_ACTIONS, AuditAction, AuditEvent, AuditLog
from agent_orchestrator.sessions.store.catalog import (
    SESSION_STATUSES,
    SessionCatalog,
    SessionPage,
    SessionRecord,
    SessionStatus,
    make_preview,
    one_line,
    validate_title,
)
from agent_orchestrator.sessions.store.engine import make_engine, write_transaction
from agent_orchestrator.sessions.store.job_lock import JobLock
from agent_orchestrator.sessions.store.leases import (
    Fence,
    Lease,
    LeaseManager,
    Revoked,
    Write,
    lease_clock,
    make_holder_id,
)
from agent_orchestrator.sessions.store.live_events import MAX_SEQ, Batch, LiveEvent, LiveEventLog
from agent_orchestrator.sessions.store.migrations import applied_migrations, migrate, migration_names
from agent_orchestrator.sessions.store.throttle import (
    Charge,
    LoginThrottle,
    account_key,
    address_key,
    login_keys,
    scope_of,
)
from agent_orchestrator.sessions.store.turn_end import TurnEnd
from agent_orchestrator.sessions.store.usage import TokenTotals, UsageLedger
from agent_orchestrator.sessions.store.users import LoginTicket, User, UserStore

__all__ = [
    "AUDIT_ACTIONS",
    "MAX_SEQ",
    "SESSION_STATUSES",
    "AuditAction",
    "AuditEvent",
    "AuditLog",
    "Batch",
    "Charge",
    "Fence",
    "JobLock",
    "Lease",
    "LeaseManager",
    "LiveEvent",
    "LiveEventLog",
    "LoginThrottle",
    "LoginTicket",
    "Revoked",
    "SessionCatalog",
    "SessionPage",
    "SessionRecord",
    "SessionStatus",
    "TokenTotals",
    "TurnEnd",
    "UsageLedger",
    "User",
    "UserStore",
    "Write",
    "account_key",
    "address_key",
    "applied_migrations",
    "lease_clock",
    "login_keys",
    "make_engine",
    "make_holder_id",
    "make_preview",
    "migrate",
    "migration_names",
    "one_line",
    "scope_of",
    "validate_title",
    "write_transaction",
]

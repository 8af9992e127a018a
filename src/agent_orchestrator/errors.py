"""Every failure the project reports to a person, under one root: :class:`AgentOrchestratorError`.

``str(error)`` is always one clear line, fit to print as a CLI's ``error: ...`` or to send as an API's
``detail``. The edges catch the root and never let a traceback reach a user: the CLIs print the line,
the web app answers through one table (``agent_orchestrator.web.errors``) that gives each class its
HTTP status.

This module sits at the bottom of the package and imports nothing, so any layer can raise these, even
the session id policy and the store, without loading the Copilot SDK. Translating the SDK's own
exceptions into these classes is the runtime's job (``agent_orchestrator.runtime.factory``).

The classes say what went wrong for the caller, not which module noticed: a session id taken in the
catalog and one taken in the runtime are the same :class:`SessionExistsError`. Self-contained
components (the embedded model, the background HTTP server) keep their few start-up errors beside
their code, derived from the same root.
"""


class AgentOrchestratorError(Exception):
    """Root of our errors: ``str(error)`` is one line for the user."""


class InvalidInputError(AgentOrchestratorError):
    """What a person typed or uploaded breaks a rule (a session id, title, page cursor, username,
    password, CSV layout); the message states the rule. A rejected id that looks like a secret is
    never echoed in it."""


class NotFoundError(AgentOrchestratorError):
    """The thing asked for does not exist."""


class SessionNotFoundError(NotFoundError):
    """The caller has no session of this id (another user's session of the same id is not theirs to
    see, and looks the same)."""


class AlreadyExistsError(AgentOrchestratorError):
    """The name or id to create is taken."""


class SessionExistsError(AlreadyExistsError):
    """A session with this id is already stored: one of the caller's (ids are per owner), or in the
    runtime (a lab's id; a web session's runtime id is always a fresh one)."""


class SessionBusyError(AgentOrchestratorError):
    """Another turn of this session is in flight (in this process or on any other server)."""


class SignInRequiredError(AgentOrchestratorError):
    """What was asked is for signed-in users only (a share link its owner kept to this server's)."""


class NothingToStopError(AgentOrchestratorError):
    """A stop was asked of a session that is not answering anything."""


class TooManyRequestsError(AgentOrchestratorError):
    """Refused for now, not for good: too many attempts, or a quota used up. ``retry_after`` is how
    many seconds until trying again can succeed (the web sends it as ``Retry-After``)."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class LoginThrottledError(TooManyRequestsError):
    """Too many failed logins for this account or from this address; the same for an unknown name."""


class TokenBudgetExceededError(TooManyRequestsError):
    """The user has used their daily model-token budget; it renews at midnight UTC."""


class ImportThrottledError(TooManyRequestsError):
    """The user has imported as many files as an hour allows; the oldest of them leaves the hour at
    ``retry_after``."""


class DecryptionError(AgentOrchestratorError):
    """Stored conversation data does not decrypt: its session's key is gone (the session was deleted),
    its master key is not configured, or the data was damaged."""


class SessionFileStoreError(AgentOrchestratorError, OSError):
    """The database behind the shared session files failed (unreachable, timed out, refused).

    Also an ``OSError`` with a real ``errno``: it is raised to the Copilot SDK's session-file adapter,
    which reports ``OSError`` s to the runtime by their code.
    """


class RuntimeFailure(AgentOrchestratorError):
    """The assistant's runtime could not do its part (not started, failed to start, lost)."""


class RuntimeMissingError(RuntimeFailure):
    """The Copilot CLI binary could not be found."""


class ModelUnavailableError(RuntimeFailure):
    """The model endpoint (embedded, BYOK or Copilot) did not answer or refused the request."""


class TurnTimeoutError(RuntimeFailure):
    """A turn did not finish within the configured time; the runtime may still be working."""


class TurnFailedError(RuntimeFailure):
    """The runtime reported an error for the turn (model error, aborted turn, lost connection)."""


class RetailDatabaseError(AgentOrchestratorError):
    """The retail database is missing, unreadable or not a retail database; the message says which
    (and names a server path, so it is logged rather than sent to API clients)."""


class ImportCancelledError(AgentOrchestratorError):
    """A dataset import was cancelled by its caller before it completed; nothing was changed."""


class EmptyDatasetError(AgentOrchestratorError):
    """The retail database has no purchases yet, so there is nothing to measure against."""


class ImportBusyError(AgentOrchestratorError):
    """A data import is already running on this server: one at a time (its progress says when)."""


class DatasetChangedError(AgentOrchestratorError):
    """The active dataset changed (a restore, a settings change or another import, maybe on another
    server) while a new version was being built from it: the new version is dropped, nothing else
    changes, and doing it again builds on the data as it is now."""


class StaleSessionError(AgentOrchestratorError):
    """A message was sent from a view of the session that is behind: other messages came since.

    Nothing is sent, nothing overwritten. ``missed`` are the live feed's message events the sender had
    not seen (``None``: more than the feed keeps; reload the conversation), ``last_event_id`` the
    number to send with once caught up.
    """

    def __init__(self, message: str, *, missed: list[dict[str, object]] | None, last_event_id: int) -> None:
        super().__init__(message)
        self.missed = missed
        self.last_event_id = last_event_id

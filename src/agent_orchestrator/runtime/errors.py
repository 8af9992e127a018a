"""User-facing failures of the runtime layer.

Every error a learner or an analyst can cause (or suffer) is one of these, carrying a message that is
fit to print as the single line a CLI shows. Callers catch :class:`RuntimeFailure` at the edge and never
let a traceback reach a user.
"""


class RuntimeFailure(Exception):
    """Base class: ``str(error)`` is one clear line for the user."""


class RuntimeMissingError(RuntimeFailure):
    """The Copilot CLI binary could not be found."""


class ModelUnavailableError(RuntimeFailure):
    """The model endpoint (embedded, BYOK or Copilot) did not answer or refused the request."""


class SessionNotFoundError(RuntimeFailure):
    """No stored session has this id (or the caller may not see it)."""


class SessionExistsError(RuntimeFailure):
    """Creating a session whose id is already stored, without asking to resume it."""


class InvalidSessionIdError(RuntimeFailure):
    """The id breaks the id policy; it is rejected before it reaches the runtime."""


class TurnTimeoutError(RuntimeFailure):
    """A turn did not finish within the configured time; the runtime may still be working."""


class TurnFailedError(RuntimeFailure):
    """The runtime reported an error for the turn (model error, aborted turn, lost connection)."""

"""What an owner does to a conversation besides sending it a message, on top of ``SessionService``.

``branching.py``: fork, edit and resend, regenerate, rewind and search
(docs/architecture.md#branching-and-search); ``readings.py``: a changed reading recorded as a turn
(docs/architecture.md#editing-a-reading); ``exchange.py``: export as JSON or Markdown, import our JSON
or a ChatGPT file (docs/architecture.md#export-and-import). Each resolves the caller's session through
the service (ownership), is audited, and changes a history only under the session's lease.
"""

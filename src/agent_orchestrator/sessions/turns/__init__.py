"""What sending a turn takes, under the session service (docs/architecture.md#session-contract).

``stream.py`` runs one turn and translates the runtime's events into what a UI shows; ``warm.py`` keeps
runtime sessions open between turns (docs/architecture.md#warm-sessions); ``holds.py`` records what this
server does under a session's lease, so that a delete can stop it and wait; ``usage.py`` meters a
turn's model tokens against the daily budget (docs/architecture.md#usage-ledger).
"""

"""``ao``: the terminal client of the web app's sessions (docs/architecture.md#terminal-client).

It speaks the app's HTTP API with a personal API token, so a chat started here shows live in the
browser and the other way round: ``config`` keeps the server and token (owner-only), ``api`` makes the
calls and reads the answer's stream, ``render`` writes answers and transcripts as text, ``cli`` is the
commands.
"""

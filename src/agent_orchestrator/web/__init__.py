"""The web app: login, the user's sessions, streamed chat, and the retail pages, on FastAPI."""

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
"""The UI's files: ``index.html``, ``share.html``, ``app.css`` and the ES modules in ``js/``."""

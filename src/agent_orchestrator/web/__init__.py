"""The web app: login, the user's sessions, streamed chat, and the retail pages, on FastAPI."""

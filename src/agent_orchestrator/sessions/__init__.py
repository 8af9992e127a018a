"""Durable conversations: the session id policy (and, as it grows, the catalog and ownership)."""

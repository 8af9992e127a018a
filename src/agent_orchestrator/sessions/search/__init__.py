"""Full-text search over a user's messages, clear or sealed (docs/architecture.md#branching-and-search).

``index.py`` keeps the ``search_messages`` rows and answers owner-scoped searches on either database;
``words.py`` splits and stems text the way the sealed index (and the cipher's blind terms) need it.
"""

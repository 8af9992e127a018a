"""Live feeds: every tab, device and server sees a conversation as it happens
(docs/architecture.md#live-sessions).

``feed.py`` publishes events through the store's bounded log and fans them out to this process's
followers (``LiveHub``, a turn's ``PublishingQueue``, what a client joining mid-turn shows);
``notify.py`` hears other servers' events through PostgreSQL ``LISTEN``.
"""

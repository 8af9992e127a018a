"""Durable conversations on the Copilot runtime: the catalog of owned sessions, sending turns under a
lease, live feeds, branching, search, export and import, encryption at rest and their operator commands
(docs/architecture.md#sessions). ``store`` is the persistent layer, ``crypto`` the sealing of text and
files, ``shared_files`` the runtime's session files in PostgreSQL."""

"""Runnable samples that teach the GitHub Copilot SDK, one module per lab."""

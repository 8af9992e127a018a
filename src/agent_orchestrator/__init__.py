"""AgentOrchestrator: a retail-analytics assistant on durable GitHub Copilot SDK sessions."""

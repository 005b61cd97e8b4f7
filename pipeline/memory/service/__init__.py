"""The memory-service, the secondary store: its HTTP client and credentials, the breaker,
the outbox and its sync, dialog summaries, merging a copy made while it was unknown.
"""

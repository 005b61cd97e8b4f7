"""Receiving updates: long polling (`polling`), the exactly-once inbox (`inbox`), the
update a task handles (`update_context`), throttling and how `stepan run` takes updates
(`serving`).
"""

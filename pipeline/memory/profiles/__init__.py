"""Profiles in SQL, the truth: loading (cache, SQL, hydration), editing, creating,
recording interactions, the process cache.
"""

"""Profiles: SQL is the truth (seed 3.2 as DESIGN.md amends it)."""

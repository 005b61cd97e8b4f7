"""The deep path's crew: Stepan and his sub-agents (docs/deep-path.md).

Nothing here imports CrewAI at module level: it costs seconds and is only needed
when an LLM is configured. ``runner`` and ``crewai_glue`` import it on first use.
"""

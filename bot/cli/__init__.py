"""The `stepan` command's parts: its arguments (`parser`), `run` and the operators'
commands (`memory`, `stats`, `rollups`). Nothing here imports aiogram at module level
but `run`.
"""

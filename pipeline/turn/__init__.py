"""A message as a Turn through named stages (docs/ARCHITECTURE.md, "The walk of a
message"): the Turn (turn.py), a stage (stage.py), the runner and its fail-safe
policy (runner.py), the stages by job (stages/), and their order (chain.py)."""

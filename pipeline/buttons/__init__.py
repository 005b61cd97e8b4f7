"""A pressed button: its typed action to one use case, through one registry."""

from pipeline.buttons.press import Ask, ButtonUse, Press
from pipeline.buttons.registry import ButtonRegistry

__all__ = ["Ask", "ButtonRegistry", "ButtonUse", "Press"]

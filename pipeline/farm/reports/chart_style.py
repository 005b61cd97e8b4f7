"""How chart lines look apart and in which order: distinct styles, natural order.

Kept apart from ``charts`` (which imports matplotlib) so both are cheap to test.
"""

from __future__ import annotations

import re

from matplotlib import colormaps
from matplotlib.colors import to_hex

_DIGITS = re.compile(r"(\d+)")
#: Line dashes used once the colours run out: colour x dash keeps lines apart.
DASHES = ("-", "--", ":", "-.")


def natural_key(label: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key reading digit runs as numbers: «Поле 2» < «Поле 10» < «Поле 10а»."""
    parts = _DIGITS.split(label.casefold().strip())
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts if part != ""
    )


def _palette(count: int) -> list[str]:
    if count <= 10:
        return [to_hex(color) for color in colormaps["tab10"].colors]  # type: ignore[attr-defined]
    # tab20 pairs a dark and a light shade of each hue: all dark ones first, so the
    # first twenty lines differ in hue before they differ in shade only.
    tab20 = [to_hex(color) for color in colormaps["tab20"].colors]  # type: ignore[attr-defined]
    return tab20[0::2] + tab20[1::2]


def line_styles(count: int) -> list[tuple[str, str]]:
    """(colour, dash) for ``count`` lines, no two alike up to 80 lines (20 colours
    times 4 dashes); beyond that the styles repeat."""
    palette = _palette(count)
    styles: list[tuple[str, str]] = []
    for index in range(count):
        colour = palette[index % len(palette)]
        dash = DASHES[(index // len(palette)) % len(DASHES)]
        styles.append((colour, dash))
    return styles

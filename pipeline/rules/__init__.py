"""Every rule as data (TOML, docs/ARCHITECTURE.md): this package is only the folder
of those files, so that each loader names its file from one place."""

from pathlib import Path
from typing import Final

RULES_DIR: Final = Path(__file__).resolve().parent

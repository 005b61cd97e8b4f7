"""Everything aiogram: the Telegram front of Stepan, its CLI and console chat."""

"""The Telegram Bot API answered in this process: the model (`api`, `files`,
`telegram_rules`), the aiogram session over it (`session`) and the terminal chat on top
(`console`).
"""

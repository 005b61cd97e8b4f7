"""Stepan's brain: everything between an incoming message and the reply.

Nothing in this package imports aiogram: the bot, the console chat and the tests
all call the same :meth:`pipeline.handle.Pipeline.handle_message`.
"""

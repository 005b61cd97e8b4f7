"""Building the bot: the composition root (`factory`), the dispatcher (`dispatcher`), the
memory layer from the settings (`memory`), the scheduler's jobs (`scheduler`), FSM
storage and the start-up calls.
"""

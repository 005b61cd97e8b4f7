"""The bot's HTTP side: sensor readings in (`readings`), webhook mode (`webhook`),
readiness and Prometheus metrics.
"""

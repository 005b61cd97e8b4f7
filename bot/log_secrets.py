"""Secrets never reach a log line: a filter on every handler masks token shapes.

aiogram builds request URLs as ``…/bot<id>:<secret>/<method>``, and aiohttp puts the
URL into the text of the errors it raises ("Can not write request body for
http://…/bot987654:SECRET/getUpdates"); aiogram then logs that text. A sensor token
(``stp_…``) could reach a log through an exception's text the same way. Masking at
the handler catches every path: the message, its arguments, the formatted
traceback and the stack.
"""

from __future__ import annotations

import logging
import re
import traceback

#: ``bot<digits>:<secret>`` (in URLs) or a bare ``<digits>:<secret>`` token; Telegram's
#: secret part is 30+ URL-safe characters, the tests' fake ones are shorter.
#: The colon may be URL-encoded (``%3A``: a URL quoted by a proxy's error page or a
#: client's log). A real token's shape (6+ digits, 30+ characters) is masked even
#: glued to a word (``token_123456789:AAH…``), where the short shape is not.
_BOT_TOKEN = re.compile(
    r"(?:(?<![\w])(bot)?(\d{3,})|()(\d{6,})(?=(?::|%3[Aa])[A-Za-z0-9_-]{30,}))"
    r"(?::|%3[Aa])[A-Za-z0-9_-]{6,}"
)
#: Sensor tokens (pipeline/farm/sensors/store.py: "stp_" + token_urlsafe).
_SENSOR_TOKEN = re.compile(r"\bstp_[A-Za-z0-9_-]{4,}")
#: The weather source's ``apikey`` query parameter (docs/weather.md), to the end of
#: its value (``&``, a quote, a space or the end of the line).
_API_KEY = re.compile(r"apikey=[^&\s\"'<>]*")
MASK = "***"


def _masked_bot_token(match: re.Match[str]) -> str:
    prefix, bot_id = match.group(1) or "", match.group(2) or match.group(4)
    return f"{prefix}{bot_id}:{MASK}"


def mask_secrets(text: str) -> str:
    """``text`` with every token-shaped substring masked; the bot id stays readable."""
    if ":" in text or "%3" in text:
        text = _BOT_TOKEN.sub(_masked_bot_token, text)
    if "stp_" in text:
        text = _SENSOR_TOKEN.sub(f"stp_{MASK}", text)
    if "apikey=" in text:
        # The weather source's key rides in its URL (httpx logs every request's URL).
        text = _API_KEY.sub(f"apikey={MASK}", text)
    return text


class SecretMaskFilter(logging.Filter):
    """Masks tokens in the message, the exception text and the stack of a record.

    The message is rendered here (``getMessage``) and its arguments dropped, so a
    token passed as an argument is masked too; the exception is formatted here once
    (``exc_text``, which ``logging.Formatter`` uses instead of formatting again)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep what the record holds
            message = str(record.msg)
        record.msg, record.args = mask_secrets(message), None
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_secrets(record.stack_info)
        return True


def install_secret_filter(*loggers: logging.Logger) -> None:
    """Put the filter on every handler of the root logger (and of ``loggers``);
    idempotent."""
    for logger in (logging.getLogger(), *loggers):
        for handler in logger.handlers:
            if not any(isinstance(f, SecretMaskFilter) for f in handler.filters):
                handler.addFilter(SecretMaskFilter())

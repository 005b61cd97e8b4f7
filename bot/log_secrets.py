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
from typing import Any

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
#: OpenAI-style keys (``sk-…``, ``sk-proj-…``), also glued to a word.
_SK_KEY = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{8,}")
#: ``Bearer <credential>`` anywhere, ``Authorization: Basic <credential>`` (a header
#: quoted in an error; "basic" alone is a word).
_AUTH_SCHEME = re.compile(
    r"(?i)(\bbearer|authorization[\"']?\s*[:=]\s*[\"']?basic)(\s+)(?!\*\*\*)[A-Za-z0-9._~+/=:-]{6,}"
)
#: A JSON Web Token: three base64url parts, the first a JSON header (``eyJ``).
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")
#: ``name=value``, ``name: value``, ``"name": "value"``, ``'name': 'value'`` for a name
#: that says it holds a secret (``api_key``, ``STEPAN_LLM_API_KEY``, ``access_token``,
#: ``client_secret``, ``password``, a bare ``key``). ``max_tokens=`` or ``fact_key=``
#: are not secrets and stay.
_NAMED = re.compile(
    r"""(?ix)
    (?P<name>(?<![\w-])key
        |[\w-]*?(?:api[_-]?key|apikey|token|secret|password|passwd|pwd|credentials?))
    (?P<close>["']?)(?P<sep>\s*[:=]\s*)
    (?P<value>"[^"\n]*"|'[^'\n]*'|(?![{\[])[^\s"'&,;(){}\[\]<>]+)
    """
)
#: Credentials in a URL: ``scheme://user:password@host``.
_URL_PASSWORD = re.compile(r"(?<=://)([^/\s:@]+):([^/\s@]+)@")
_CHEAP_HINTS = ("sk-", "earer", "eyJ", "=", ":", "@")


def _masked_bot_token(match: re.Match[str]) -> str:
    prefix, bot_id = match.group(1) or "", match.group(2) or match.group(4)
    return f"{prefix}{bot_id}:{MASK}"


def _masked_named(match: re.Match[str]) -> str:
    value = match.group("value")
    if MASK in value:
        return match.group(0)  # already masked (``bot123:***``, ``stp_***``): its shape stays
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{match.group('name')}{match.group('close')}{match.group('sep')}{quote}{MASK}{quote}"


def mask_secrets(text: str) -> str:
    """``text`` with every token-shaped substring masked; the bot id stays readable."""
    if ":" in text or "%3" in text:
        text = _BOT_TOKEN.sub(_masked_bot_token, text)
    if "stp_" in text:
        text = _SENSOR_TOKEN.sub(f"stp_{MASK}", text)
    if "apikey=" in text:
        # The weather source's key rides in its URL (httpx logs every request's URL).
        text = _API_KEY.sub(f"apikey={MASK}", text)
    if any(hint in text for hint in _CHEAP_HINTS):
        text = _mask_credentials(text)
    return text


def _mask_credentials(text: str) -> str:
    if "sk-" in text:
        text = _SK_KEY.sub(f"sk-{MASK}", text)
    if "eyJ" in text:
        text = _JWT.sub(MASK, text)
    text = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    if "=" in text or ":" in text:
        text = _NAMED.sub(_masked_named, text)
    if "@" in text:
        text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{MASK}@", text)
    return text


class SecretMaskFilter(logging.Filter):
    """Masks tokens in the message, the exception text and the stack of a record.

    The message is rendered here (``getMessage``) and its arguments dropped, so a
    token passed as an argument is masked too; the exception is formatted here once
    (``exc_text``, which ``logging.Formatter`` uses instead of formatting again)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, _MASKED, False):
            mask_record(record)
        return True


#: Set on a record once masked (by the record factory or a handler's filter).
_MASKED = "_stepan_secrets_masked"


def mask_record(record: logging.LogRecord) -> None:
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
    setattr(record, _MASKED, True)


def install_secret_record_factory() -> None:
    """Mask every record as it is made, whichever handler writes it later: a library
    that adds a handler of its own after start-up (LiteLLM does on import, and CrewAI
    is imported on first use) writes masked records too. Idempotent."""
    factory = logging.getLogRecordFactory()
    if getattr(factory, _MASKED, False):
        return

    def masking_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        mask_record(record)
        return record

    setattr(masking_factory, _MASKED, True)
    logging.setLogRecordFactory(masking_factory)


def install_secret_filter(*loggers: logging.Logger) -> None:
    """Put the filter on every handler of the root logger, of every logger that has
    handlers of its own (a library that logs past the root: LiteLLM, CrewAI) and of
    ``loggers``; idempotent. Call it again after a library adds a handler."""
    known = [
        item
        for item in logging.root.manager.loggerDict.values()
        if isinstance(item, logging.Logger) and item.handlers
    ]
    for logger in (logging.getLogger(), *known, *loggers):
        for handler in logger.handlers:
            if not any(isinstance(f, SecretMaskFilter) for f in handler.filters):
                handler.addFilter(SecretMaskFilter())

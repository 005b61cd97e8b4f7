"""What the Telegram Bot API refuses, checked the way it checks: text lengths in UTF-16
code units after parsing the markup, HTML entities, callback data and command menus.
Used by `bot.local.api` (the console and the tests answer the bot with it)."""

from __future__ import annotations

import re
from typing import Any

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64

_HTML_TAGS = frozenset(
    {
        "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
        "a", "code", "pre", "blockquote", "tg-emoji", "tg-time",
    }
)  # fmt: skip
_HTML_SPECIAL_RE = re.compile(r"[<&]")
_HTML_TAG_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_HTML_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});")
_HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")


class ApiError(Exception):
    """A refusal, as the Bot API answers it (``ok: false``)."""

    def __init__(
        self, error_code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def envelope(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            payload["parameters"] = self.parameters
        return payload


def bad_request(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def visible_text(text: str, parse_mode: Any, limit: int, *, caption: bool = False) -> str:
    """The text a user would see, parsed per ``parse_mode``; raises as Telegram does.

    Only HTML is modelled: Stepan sends plain text, and the HTML check is what shows
    that a default parse mode never reaches its messages. Another mode is refused
    here rather than passed unchecked."""
    mode = str(parse_mode or "").lower()
    if mode == "html":
        text = parse_html(text)
    elif mode:
        raise bad_request(f"parse mode {parse_mode!r} is not modelled by the local Bot API")
    text = text.strip()
    if utf16_len(text) > limit:
        raise bad_request("message caption is too long" if caption else "message is too long")
    return text


def check_callback_data(data: Any) -> None:
    if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA:
        raise bad_request("BUTTON_DATA_INVALID")


def check_command(command: dict[str, Any]) -> None:
    if not _COMMAND_RE.fullmatch(str(command.get("command", ""))):
        raise bad_request("BOT_COMMAND_INVALID")
    if not 1 <= len(str(command.get("description", ""))) <= 256:
        raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def parse_html(text: str) -> str:
    """Check Telegram-flavoured HTML like the Bot API does; return the visible text."""
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    while (match := _HTML_SPECIAL_RE.search(text, pos)) is not None:
        start = match.start()
        out.append(text[pos:start])
        if text[start] == "&":
            entity = _HTML_ENTITY_RE.match(text, start)
            if entity is None:
                out.append("&")
                pos = start + 1
                continue
            name = entity.group(1)
            if name in _HTML_NAMED:
                out.append(_HTML_NAMED[name])
            else:
                code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
                out.append(chr(code) if 0 < code < 0x110000 else "\ufffd")
            pos = entity.end()
            continue
        end = text.find(">", start)
        at = _byte_offset(text, start)
        if end < 0:
            raise bad_request(f"can't parse entities: Unclosed start tag at byte offset {at}")
        inner = text[start + 1 : end]
        if inner.startswith("/"):
            name = inner[1:].strip().lower()
            if not stack:
                raise bad_request(f"can't parse entities: Unexpected end tag at byte offset {at}")
            if stack[-1] != name:
                raise bad_request(
                    f"can't parse entities: Unmatched end tag at byte offset {at}, "
                    f'expected "</{stack[-1]}>", found "</{name}>"'
                )
            stack.pop()
        else:
            tag = _HTML_TAG_NAME_RE.match(inner)
            if tag is None or tag.group(0).lower() not in _HTML_TAGS:
                raise bad_request(
                    f'can\'t parse entities: Unsupported start tag "{inner}" at byte offset {at}'
                )
            stack.append(tag.group(0).lower())
        pos = end + 1
    out.append(text[pos:])
    if stack:
        raise bad_request(
            f"can't parse entities: Can't find end tag corresponding to start tag \"{stack[-1]}\""
        )
    return "".join(out)

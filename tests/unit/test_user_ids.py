"""Stepan's user ids of Telegram users, and back (bot/user_ids.py)."""

from __future__ import annotations

import pytest

from bot.user_ids import stepan_user_id, telegram_id


def test_round_trip() -> None:
    assert stepan_user_id(123456) == "tg:123456"
    assert telegram_id(stepan_user_id(123456)) == 123456


@pytest.mark.parametrize("user_id", [None, "", "123456", "tg:", "tg:abc", "tg:1²", "web:5"])
def test_not_a_telegram_user(user_id: str | None) -> None:
    assert telegram_id(user_id) is None


def test_too_long_is_not_an_id() -> None:
    assert telegram_id("tg:" + "9" * 19) is None

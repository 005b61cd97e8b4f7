"""`stepan chat`: a line ``/location LAT LON`` is sent as Telegram's location message,
so placing the farm works in the terminal as in the bot; an operator's /farm shows
the points (docs/weather.md)."""

from __future__ import annotations

import io
from pathlib import Path

from bot.local.console import chat, location_of
from bot.wiring.factory import build_core
from tests.conftest import make_settings
from tests.shared import catalog, rulebook


async def _chat(sqlite_url: str, lines: list[str], *, operator: bool = False) -> str:
    core = build_core(make_settings(sqlite_url), rules=rulebook(), catalog=catalog())
    out = io.StringIO()
    try:
        source = io.StringIO("\n".join(lines) + "\n")
        await chat(core, "olena", source, out, operator=operator, files_dir=Path("unused"))
    finally:
        await core.close()
    return out.getvalue()


def test_only_a_well_formed_line_is_a_location() -> None:
    assert location_of("/location 49.59 34.55") == (49.59, 34.55)
    assert location_of("/location 49,59 34,55") == (49.59, 34.55)
    assert location_of("/location 49.59") is None
    assert location_of("/location here there") is None
    assert location_of("погода /location 1 2") is None


async def test_a_location_line_places_the_farm_and_the_farm_card_shows_it(
    sqlite_url: str,
) -> None:
    out = await _chat(sqlite_url, ["/location 49.5883 34.5514", "#1", "/farm"], operator=True)
    assert "Степан: 📍 Отримав точку 49,588° пн. ш., 34,551° сх. д." in out
    assert "[#1] 🏠 Ферма" in out
    assert "Степан ✎ 📍 Запам'ятав: ферма тут" in out
    assert "Область: Полтавська область" in out
    assert "Точка: 49,588° пн. ш., 34,551° сх. д." in out
    assert "Часовий пояс: Europe/Kyiv" in out


async def test_a_point_out_of_range_gets_the_polite_line(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["/location 95 34"])
    assert "Поки я розумію лише текстові повідомлення" in out


async def test_me_shows_where_the_farm_is(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["/location 49.5883 34.5514", "#1", "/me"])
    assert (
        "• Точка ферми: 49,588° пн. ш., 34,551° сх. д.; 0 полів з власною точкою — для"
        " прогнозу погоди саме для вас" in out
    )

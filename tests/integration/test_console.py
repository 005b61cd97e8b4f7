"""The terminal chat: same pipeline and database, driven by piped input."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from bot.console import chat
from bot.factory import build_core
from tests.conftest import REPO, make_settings


async def _chat(sqlite_url: str, lines: list[str], user: str = "olena") -> str:
    core = build_core(make_settings(sqlite_url))
    out = io.StringIO()
    try:
        await chat(core, user, io.StringIO("\n".join(lines) + "\n"), out, operator=False)
    finally:
        await core.close()
    return out.getvalue()


async def test_buttons_are_numbered_and_pressed(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["привіт", "#2", "дякую"])
    assert "Степан: Привіт, olena!" in out
    assert "[#1] Познайомимось" in out and "[#2] Пізніше" in out
    assert "/start" in out  # the "later" reply
    assert out.count("Степан:") == 3


async def test_onboarding_in_the_console(sqlite_url: str) -> None:
    out = await _chat(
        sqlite_url,
        [
            "привіт",
            "#1",
            "Олена",
            "#1",
            "Північне, Південне",
            "пшениця",
            "#2",
            "#1",
            "хто я",
            "запиши полив 20 мм на Південному",
        ],
    )
    assert "Як до вас звертатися?" in out
    assert "Дякую, тепер я знаю вас і вашу ферму!" in out
    assert "Ви — Олена" in out  # whoami after onboarding uses the new name
    assert "Поле: Південне" in out and "⏳" not in out  # the onboarded field is known


async def test_a_button_number_out_of_range_is_just_text(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["привіт", "#9"])
    assert out.count("Степан:") == 2


def test_cli_with_piped_input(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "STEPAN_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}",
        "PYTHONPATH": str(REPO),
    }
    env.pop("STEPAN_BOT_TOKEN", None)
    result = subprocess.run(
        [sys.executable, "-m", "bot", "chat", "--user", "petro"],
        input="привіт\nхто я\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Привіт, petro!" in result.stdout
    assert "Ви — petro" in result.stdout
    assert "Traceback" not in result.stderr

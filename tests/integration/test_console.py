"""The terminal chat: the whole bot (the same dispatcher as Telegram), driven by piped
input, with the Bot API answered locally."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from bot.commands import help_text
from bot.local.console import chat, console_user_id, recording_seconds
from bot.wiring.factory import build_core
from db.models import FarmProfileRow, InteractionRow, OperationRow, UserProfileRow
from pipeline.language.texts import Texts
from tests.conftest import REPO, make_settings
from tests.fakes.stt import FakeStt
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

CATALOG = shared_catalog()


def _text(key: str, **params: object) -> str:
    return CATALOG.text("uk", key, **params)


async def _chat(
    sqlite_url: str,
    lines: list[str],
    user: str = "olena",
    *,
    operator: bool = False,
    files_dir: Path | None = None,
) -> str:
    core = build_core(make_settings(sqlite_url), rules=rulebook(), catalog=shared_catalog())
    out = io.StringIO()
    try:
        await chat(
            core,
            user,
            io.StringIO("\n".join(lines) + "\n"),
            out,
            operator=operator,
            files_dir=files_dir or Path("unused"),
        )
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
            "#1",
            "Північне, Південне",
            "пшениця",
            "#2",
            "#1",
            "#1",
            "хто я",
            "запиши полив 20 мм на Південному",
            "/me",
        ],
    )
    assert "Як до вас звертатися?" in out
    assert "Дякую, тепер я знаю вас і вашу ферму!" in out
    assert "Ви — Олена" in out  # whoami after onboarding uses the new name
    assert "Поле: Південне" in out and "⏳" not in out  # the onboarded field is known
    # /me speaks the farmer's language: names and words, never ids or slugs.
    me = out[out.index(_text("me.header")) :]
    assert _text("me.line.fields", value="Північне, Південне") in me
    assert _text("me.line.crops", value="Пшениця") in me
    assert _text("me.line.name", value="Олена") in me
    assert _text("me.topic.recording") in me
    assert _text("me.line.sensors", value=_text("me.sensors_none")) in me
    for internal in ("tg:", "field:", "crop:", "farm:", "recording", "greeting"):
        assert internal not in me, internal


async def test_a_button_number_out_of_range_is_just_text(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["привіт", "#9"])
    assert out.count("Степан:") == 2


async def test_commands_work_as_in_telegram(sqlite_url: str) -> None:
    out = await _chat(sqlite_url, ["привіт", "/help", "/whoami", "/me", "#1", "/profile"])
    # A new user is a novice (issue 11 point 2): the intro explains its terms.
    intro = "\n\n".join([_text("light.help"), _text("level.novice.why.light.help")])
    assert help_text(Texts(CATALOG, "uk"), intro, operator=False) in out
    role = _text("admin.role_user")
    assert _text("admin.whoami", telegram_id=console_user_id("olena"), role=role) in out
    assert _text("me.header") in out
    # /me's first button is "brief": the same style button as in Telegram.
    assert _text("actions.style_set", style=_text("actions.adverb.brief")) in out
    # Not an operator: refused, as in Telegram.
    assert f"Степан: {_text('admin.not_operator')}" in out


async def test_operator_commands_and_card_buttons(sqlite_url: str) -> None:
    out = await _chat(
        sqlite_url,
        ["привіт", "/profile", "#3", "/status", "/pending", "/token", "/forget", "#2"],
        operator=True,
    )
    assert "👤" in out and f"Telegram id: {console_user_id('olena')}" in out
    # "#3" (expert) answers with a toast and edits the card in place.
    assert f"  ⓘ {_text('admin.saved')}" in out
    assert "Степан ✎ 👤" in out and _text("cards.set_by_operator") in out
    assert f"✅ {_text('status.service.database')}: " in out  # /status
    assert f"Степан: {_text('terms.none')}" in out  # /pending
    console_id = console_user_id("olena")
    issued = _text("sensors.token_issued", token="TOKEN", user=console_id)
    assert f"Степан: {issued.split('TOKEN')[0]}" in out  # /token: a token for their farm
    assert f"Степан ✎ {_text('me.kept')}" in out  # /forget, then "keep"
    assert _text("admin.not_operator") not in out


async def _october_watering(sqlite_url: str) -> None:
    """A watering on 15 October of this year and of the last: "за жовтень" is the
    latest October, whichever that is today."""
    engine = create_async_engine(sqlite_url)
    try:
        async with engine.begin() as connection:
            farm_id = (await connection.execute(select(FarmProfileRow.farm_id))).scalar_one()
            year = date.today().year
            for day in (date(year, 10, 15), date(year - 1, 10, 15)):
                await connection.execute(
                    insert(OperationRow).values(
                        farm_id=farm_id,
                        op_type="irrigation",
                        op_date=day,
                        status="done",
                        author="console",
                        quantity=20.0,
                        unit="mm",
                    )
                )
    finally:
        await engine.dispose()


async def test_files_the_bot_sends_are_saved(sqlite_url: str, tmp_path: Path) -> None:
    files = tmp_path / "chat-files"
    await _chat(sqlite_url, ["привіт"])
    await _october_watering(sqlite_url)  # a period with no record gets no file
    out = await _chat(sqlite_url, ["зроби звіт в excel за жовтень"], files_dir=files)
    [saved] = list(files.iterdir())
    assert saved.suffix == ".xlsx" and saved.read_bytes()[:2] == b"PK"  # a zip: xlsx
    assert f"  (file: {saved})" in out


async def test_every_session_on_one_database_is_recorded(sqlite_url: str) -> None:
    """A second terminal session's updates are not taken for replays of the first's."""
    first = ["привіт", "яка вологість на полі 2", "дякую"]
    second = ["добрий ранок", "сплануй тиждень", "дякую"]
    await _chat(sqlite_url, first)
    await _chat(sqlite_url, second)
    engine = create_async_engine(sqlite_url)
    try:
        async with engine.connect() as connection:
            texts = (await connection.execute(select(InteractionRow.text))).scalars().all()
            count = (
                await connection.execute(select(UserProfileRow.interaction_count))
            ).scalar_one()
    finally:
        await engine.dispose()
    assert sorted(texts) == sorted(first + second)
    assert count == len(first + second)


def test_cli_with_piped_input(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "STEPAN_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}",
        "PYTHONPATH": str(REPO),
    }
    env.pop("STEPAN_BOT_TOKEN", None)
    result = subprocess.run(
        [sys.executable, "-m", "bot", "chat", "--user", "petro"],
        input="привіт\nхто я\n/whoami\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Привіт, petro!" in result.stdout
    assert "Ви — petro" in result.stdout
    assert str(console_user_id("petro")) in result.stdout  # /whoami: a command, routed
    assert "Traceback" not in result.stderr


def test_console_users_are_never_sent_alerts_in_telegram() -> None:
    """A console user and a bot user may share the database (./data/stepan.db)."""
    from pipeline.farm.sensors.alerts import telegram_chat

    assert telegram_chat("tg:123456789") == 123456789
    assert console_user_id("olena") == console_user_id("olena") != console_user_id("petro")
    assert telegram_chat(f"tg:{console_user_id('olena')}") is None


def _ogg(seconds: int) -> bytes:
    """An OGG page header whose granule position says ``seconds`` of Opus (48 kHz)."""
    return b"OggS\x00\x04" + (seconds * 48_000).to_bytes(8, "little") + b"\x00" * 20


async def test_voice_sends_a_file_as_a_voice_message(sqlite_url: str, tmp_path: Path) -> None:
    recording = tmp_path / "field.ogg"
    recording.write_bytes(_ogg(7))
    async with FakeStt(default="яка вологість на полі 2") as stt:
        settings = make_settings(sqlite_url)
        stepan = settings.stepan.model_copy(
            update={"stt_model": "whisper-1", "stt_base_url": stt.base_url}
        )
        core = build_core(
            replace(settings, stepan=stepan), rules=rulebook(), catalog=shared_catalog()
        )
        out = io.StringIO()
        lines = f"/voice {recording}\n/voice {tmp_path / 'missing.ogg'}\n"
        try:
            await chat(core, "olena", io.StringIO(lines), out, files_dir=tmp_path)
        finally:
            await core.close()
    text = out.getvalue()
    assert f"Степан: {_text('voice.heard', text='яка вологість на полі 2')}" in text
    # Fetched through the local Bot API's getFile and download, as from Telegram.
    [received] = stt.requests
    assert (received.filename, received.size) == ("speech.ogg", len(_ogg(7)))
    assert "(/voice: No such file or directory:" in text


async def test_voice_without_transcription_says_so(sqlite_url: str, tmp_path: Path) -> None:
    recording = tmp_path / "field.ogg"
    recording.write_bytes(_ogg(3))
    out = await _chat(sqlite_url, [f"/voice {recording}"])
    assert f"Степан: {_text('voice.off')}" in out


def test_a_recordings_length_is_read_from_its_last_ogg_page() -> None:
    assert recording_seconds(_ogg(95)) == 95
    assert recording_seconds(b"ID3" + b"\x00" * 10_000) == 5  # an estimate from the size

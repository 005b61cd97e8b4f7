"""A location sent alone (docs/weather.md): Stepan asks «the farm, or which field?»,
the button sets the point; the farm's point gives its timezone and, when its region
is unknown, its oblast. Only the sender's own farm is placed."""

from __future__ import annotations

from sqlalchemy import select

from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import FarmProfileRow, FieldRow
from db.repositories import farm as farm_repo
from tests.handlers.conftest import FARMER, INTRUDER, message_id, requests

GROUP = -100777
POLTAVA = (49.58834, 34.55142)
FIELD = (49.61, 34.49)


async def _farm_with_fields(core: Core, *names: str) -> str:
    farm_id = await core.memory.editor.ensure_farm(f"tg:{FARMER}")
    assert farm_id is not None
    async with core.db.write() as session:
        for number, name in enumerate(names, start=1):
            await farm_repo.add_field(session, farm_id, f"field:f{number}", name)
    return farm_id


async def _farm(core: Core) -> FarmProfileRow:
    async with core.db.sessions() as session:
        row = (
            await session.execute(
                select(FarmProfileRow).where(FarmProfileRow.user_id == f"tg:{FARMER}")
            )
        ).scalar_one()
        return row


def _buttons(params: dict[str, object]) -> list[tuple[str, str]]:
    markup = params["reply_markup"]
    assert isinstance(markup, dict)
    return [(b["text"], b["callback_data"]) for row in markup["inline_keyboard"] for b in row]


async def test_a_location_asks_and_the_farm_button_places_the_farm(
    core: Core, tg: LocalBot
) -> None:
    await _farm_with_fields(core, "Північне", "За ставком")
    calls = await tg.send_location(FARMER, *POLTAVA)
    [(method, params)] = requests(calls)
    assert method == "sendMessage"
    assert params["text"] == (
        "📍 Отримав точку 49,588° пн. ш., 34,551° сх. д. — що тут: ваша ферма чи одне з полів?"
    )
    buttons = _buttons(params)
    assert [label for label, _ in buttons] == ["🏠 Ферма", "🌾 Північне", "🌾 За ставком"]
    assert all(len(data.encode()) <= 64 for _, data in buttons)

    pressed = await tg.press(FARMER, buttons[0][1], message_id(calls[0]))
    edits = [params for method, params in requests(pressed) if method == "editMessageText"]
    assert edits and edits[0]["text"] == (
        "📍 Запам'ятав: ферма тут (49,588° пн. ш., 34,551° сх. д.). "
        "Прогноз погоди тепер — для цієї точки.\n"
        "Час показуватиму за поясом Europe/Kyiv.\n"
        "Область: Полтавська область."
    )
    farm = await _farm(core)
    assert (farm.latitude, farm.longitude) == POLTAVA
    assert farm.timezone == "Europe/Kyiv" and farm.region == "poltava"


async def test_a_field_button_places_that_field_and_a_known_region_stays(
    core: Core, tg: LocalBot
) -> None:
    farm_id = await _farm_with_fields(core, "Північне", "За ставком")
    async with core.db.write() as session:
        await farm_repo.set_region(session, farm_id, "kharkiv")
    calls = await tg.send_location(FARMER, *FIELD)
    buttons = _buttons(requests(calls)[0][1])
    pressed = await tg.press(FARMER, buttons[2][1], message_id(calls[0]))
    edits = [params for method, params in requests(pressed) if method == "editMessageText"]
    assert edits[0]["text"].startswith("📍 Запам'ятав: поле «За ставком» тут (49,61° пн. ш.")
    async with core.db.sessions() as session:
        rows = (await session.execute(select(FieldRow).order_by(FieldRow.id))).scalars().all()
    assert [(row.name, row.latitude, row.longitude) for row in rows] == [
        ("Північне", None, None),
        ("За ставком", *FIELD),
    ]
    # Placing the farm later keeps the oblast an operator or the farmer chose.
    calls = await tg.send_location(FARMER, *POLTAVA)
    await tg.press(FARMER, _buttons(requests(calls)[0][1])[0][1], message_id(calls[0]))
    assert (await _farm(core)).region == "kharkiv"


async def test_another_member_cannot_place_the_senders_farm(core: Core, tg: LocalBot) -> None:
    await _farm_with_fields(core, "Північне")
    fields = {"location": {"latitude": POLTAVA[0], "longitude": POLTAVA[1]}}
    calls = await tg.feed(tg.telegram.message_update(FARMER, fields, chat_id=GROUP))
    buttons = _buttons(requests(calls)[0][1])
    pressed = await tg.feed(
        tg.telegram.callback_update(
            INTRUDER, buttons[0][1], message_id=message_id(calls[0]), chat_id=GROUP
        )
    )
    answers = [params for method, params in requests(pressed) if method == "answerCallbackQuery"]
    assert answers[0]["text"] == "Цю точку надіслав інший учасник чату — кнопки для нього."
    assert not [method for method, _ in requests(pressed) if method == "editMessageText"]
    assert (await _farm(core)).latitude is None


async def test_a_forged_field_of_another_farm_expires(core: Core, tg: LocalBot) -> None:
    await _farm_with_fields(core, "Північне")
    # A field row of somebody else's farm, pressed with the farmer's own id.
    other = await core.memory.editor.ensure_farm(f"tg:{INTRUDER}")
    assert other is not None
    async with core.db.write() as session:
        await farm_repo.add_field(session, other, "field:x", "Чуже")
    async with core.db.sessions() as session:
        row_id = await session.scalar(select(FieldRow.id).where(FieldRow.name == "Чуже"))
    pressed = await tg.press(FARMER, f"lc:{FARMER}:4961000:3449000:{row_id}", 1)
    texts = [params.get("text") for _, params in requests(pressed)]
    assert "Ця кнопка вже не діє. Напишіть, що потрібно, — я допоможу." in texts, texts
    async with core.db.sessions() as session:
        assert await session.scalar(select(FieldRow.latitude).where(FieldRow.id == row_id)) is None

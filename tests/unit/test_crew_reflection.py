"""Deep reflection (seed 3.4): one LLM pass, guarded per conversation, never failing."""

from __future__ import annotations

import asyncio

from pipeline.profiles import UserProfile
from pipeline.replies import reflection

PROFILE = UserProfile(user_id="tg:1", expertise_level="novice", preferred_style="brief")
TEMPLATE = "Оціни для «{expertise_level}», стиль «{preferred_style}»:\n{response}"


async def _reflect(text: str, complete: reflection.Complete, **kwargs: object) -> str:
    return await reflection.reflect_deep(
        text,
        PROFILE,
        "trace-1",
        complete=complete,
        system="sys",
        template=TEMPLATE,
        **kwargs,  # type: ignore[arg-type]
    )


async def test_one_pass_with_the_seed_prompt() -> None:
    prompts: list[tuple[str, str]] = []

    async def complete(system: str, user: str) -> str:
        prompts.append((system, user))
        return "Простіше: полийте ввечері."

    labels = {"expertise_level": "початківець", "preferred_style": "коротко"}
    answer = await _reflect("Рекомендовано іригацію у вечірній період.", complete, labels=labels)
    assert answer == "Простіше: полийте ввечері."
    assert prompts == [
        (
            "sys",
            "Оціни для «початківець», стиль «коротко»:\nРекомендовано іригацію у вечірній період.",
        )
    ]


async def test_any_error_returns_the_original() -> None:
    async def boom(system: str, user: str) -> str:
        raise ConnectionError("down")

    async def empty(system: str, user: str) -> str:
        return "   "

    async def runaway(system: str, user: str) -> str:
        return "дуже " * 500

    for complete in (boom, empty, runaway):
        assert await _reflect("Полийте ввечері.", complete) == "Полийте ввечері."


async def test_timeout_returns_the_original() -> None:
    async def slow(system: str, user: str) -> str:
        await asyncio.sleep(10)
        return "пізно"

    assert await _reflect("Полийте.", slow, timeout_s=0.05) == "Полийте."


async def test_reentry_is_skipped() -> None:
    inner: list[str] = []

    async def complete(system: str, user: str) -> str:
        inner.append(await _reflect("вкладена", complete))  # would recurse forever
        return "зовнішня"

    assert await _reflect("відповідь", complete) == "зовнішня"
    assert inner == ["вкладена"]  # the nested pass returned its text untouched
    assert not reflection.is_reflecting()


async def test_one_chat_reflecting_does_not_make_others_skip() -> None:
    """Seed's module-level flag would make chat B skip while chat A reflects."""
    a_inside = asyncio.Event()
    b_done = asyncio.Event()
    called: list[str] = []

    async def complete_a(system: str, user: str) -> str:
        called.append("a")
        a_inside.set()
        await b_done.wait()  # A is still reflecting while B runs
        return "A виправлена"

    async def complete_b(system: str, user: str) -> str:
        called.append("b")
        return "B виправлена"

    async def chat_b() -> str:
        await a_inside.wait()
        try:
            return await _reflect("B", complete_b)
        finally:
            b_done.set()

    a, b = await asyncio.gather(_reflect("A", complete_a), chat_b())
    assert (a, b) == ("A виправлена", "B виправлена")
    assert sorted(called) == ["a", "b"]


def test_light_reflect_still_works() -> None:
    assert reflection.reflect('{"a": 1}', PROFILE, "t") == "a: 1"

"""Light reflection rules (seed 3.4) and the ContextVar guard."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.profiles import UserProfile
from pipeline.replies import reflection


def _profile(style: str = "conversational") -> UserProfile:
    return UserProfile(user_id="tg:1", preferred_style=style)  # type: ignore[arg-type]


def test_brief_long_answer_cut_to_three_sentences() -> None:
    long = " ".join(f"Речення номер {i} про полив і ґрунт." for i in range(40))
    assert len(long) > reflection.BRIEF_LIMIT
    out = reflection.reflect(long, _profile("brief"), "t")
    assert (
        out == "Речення номер 0 про полив і ґрунт. Речення номер 1 про полив і ґрунт. "
        "Речення номер 2 про полив і ґрунт."
    )


def test_brief_short_answer_untouched_and_other_styles_keep_length() -> None:
    short = "Коротко. Ясно. Добре. Ще одне."
    assert reflection.reflect(short, _profile("brief"), "t") == short
    long = "Так. " * 200
    assert reflection.reflect(long, _profile("detailed"), "t") == long.strip()


def test_json_fragment_becomes_text() -> None:
    out = reflection.reflect(
        'Готово: {"field": "Північне", "amount_mm": 20, "done": true}', _profile(), "t"
    )
    assert "{" not in out and '"' not in out
    assert "field: Північне" in out
    assert "amount mm: 20" in out


def test_non_json_braces_are_kept() -> None:
    text = "Формула {x} лишається, як і [посилання]."
    assert reflection.reflect(text, _profile(), "t") == text


def test_uuid_and_trace_ids_removed() -> None:
    text = (
        "Запис створено 3f2b6a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b. "
        "Все добре (trace_id=ab12cd34ef). Request-ID: 77aa99"
    )
    out = reflection.reflect(text, _profile(), "t")
    assert "3f2b6a9e" not in out
    assert "ab12cd34ef" not in out and "trace" not in out.lower()
    assert "77aa99" not in out
    assert out.startswith("Запис створено.")


def test_error_returns_original(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(text: str) -> str:
        raise RuntimeError("broken rule")

    monkeypatch.setattr(reflection, "humanize_json", boom)
    assert reflection.reflect("оригінал", _profile(), "t") == "оригінал"


def test_reentry_is_skipped() -> None:
    calls: list[bool] = []

    def nested(text: str) -> str:
        calls.append(reflection.is_reflecting())
        return reflection.reflect(text + ' {"a": 1}', _profile(), "inner")

    original = reflection.strip_identifiers
    try:
        reflection.strip_identifiers = nested  # type: ignore[assignment]
        out = reflection.reflect("x", _profile(), "outer")
    finally:
        reflection.strip_identifiers = original  # type: ignore[assignment]
    assert calls == [True]
    # The nested call returned its input unchanged: the JSON was not rewritten.
    assert out.endswith('{"a": 1}')


async def test_one_chat_reflecting_does_not_make_others_skip() -> None:
    """The seed's module-level bool would make every other chat skip reflection."""
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow_model(system: str, prompt: str) -> str:
        started.set()
        await release.wait()
        return "переглянуто"

    # One chat is inside its deep reflection pass, waiting for the model...
    holder = asyncio.create_task(
        reflection.reflect_deep(
            "відповідь", _profile(), "chat-a", complete=slow_model, system="", template="{response}"
        )
    )
    await started.wait()
    # ...while another chat's reply is reflected in full.
    out = reflection.reflect('{"field": "north"}', _profile(), "other-chat")
    release.set()
    assert await holder == "переглянуто"
    assert out == "field: north"

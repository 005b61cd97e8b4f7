"""The handoff contract: what a sub-agent is told, and that no secret is in it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pipeline.crew.config import CrewSpec
from pipeline.crew.contract import REDACTED, FarmOutline, build_contract, sanitize
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import DeepRequest, DepthDecision, Incoming


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("подзвони на +380 67 123 45 67", "123 45 67"),
        ("мій номер (067) 123-45-67", "123-45-67"),
        ("токен 123456789:AAH3kdP9sl2kdKDmxPOW9dk3kdLw0dkWe", "AAH3kdP9"),
        ("ключ sk-proj-abcdef1234567890", "abcdef1234567890"),
        ("пиши на oksana@example.com", "oksana@example.com"),
        ("trace 3f2a9c1e-1b2d-4c3e-9f8a-0123456789ab", "3f2a9c1e"),
        ("користувач tg:123456 з farm:abc123def4567890", "tg:123456"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "eyJhbGci"),
    ],
)
def test_sanitize_removes_secrets(text: str, secret: str) -> None:
    cleaned = sanitize(text)
    assert secret not in cleaned
    assert REDACTED in cleaned


@pytest.mark.parametrize(
    "text",
    [
        "запиши полив 20 мм на полі 3 вчора",
        "звіт з 01.04 по 30.04",
        "field:pole-2 і crop:wheat",
        "внесли 150 кг/га на 12,5 га",
        "з 2025-04-01 по 2025-04-30",
    ],
)
def test_sanitize_keeps_farm_facts(text: str) -> None:
    assert sanitize(text) == text


def test_sanitize_caps_length() -> None:
    assert len(sanitize("слово " * 500)) <= 500


def _request(text: str, lang: str = "uk") -> DeepRequest:
    profile = UserProfile(user_id="tg:777", name="Оксана", expertise_level="novice")
    farm = FarmProfile(farm_id="farm:0123456789abcdef", user_id="tg:777")
    farm.iot_sensors.has_iot_integration = True
    return DeepRequest(
        incoming=Incoming("tg:777", 777, text, "abcdef0123456789", first_name="Оксана"),
        decision=DepthDecision("deep", "recording", ("ops",), 0.9, "test", ("recording",)),
        crew=("ops",),
        profile=profile,
        farm=farm,
        lang=lang,  # type: ignore[arg-type]
        now=datetime(2025, 5, 14, 10, tzinfo=UTC),
    )


def test_contract_carries_intent_goal_constraints_and_a_clean_summary() -> None:
    crew = CrewSpec.load()
    outline = FarmOutline(("field:pole-3 (Поле 3)",), ("Пшениця",))
    contract = build_contract(
        _request("запиши полив на полі 3, тел. 0671234567"), "ops", crew, outline
    )
    assert contract.intent == "recording" and contract.target_agent == "ops"
    assert (
        contract.language == "Ukrainian" and contract.time_budget_s == crew.limits.agent_timeout_s
    )
    assert contract.requires_consent  # a write waits for the farmer's ✅
    assert "0671234567" not in contract.user_goal
    described = contract.task_description(crew)
    for secret in ("tg:777", "farm:0123456789abcdef", "abcdef0123456789", "Оксана"):
        assert secret not in described
    assert "field:pole-3 (Поле 3)" in described and "IoT sensors connected" in described
    assert "novice" in described and "2025-05-14" in described


def test_read_only_agents_need_no_consent() -> None:
    contract = build_contract(_request("яка вологість", "en"), "iot", CrewSpec.load())
    assert not contract.requires_consent and contract.language == "English"

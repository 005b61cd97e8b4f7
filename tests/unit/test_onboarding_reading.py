"""How onboarding reads a typed message (pipeline/onboarding/reading.py,
rules/onboarding.toml): an interruption, or a typed answer to a button question."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.actions import OnboardingAction, OnboardingChoice
from pipeline.onboarding.reading import ONBOARDING_RULES, OnboardingReader, OnboardingRules
from tests.shared import rulebook

RULES = rulebook()
READER = OnboardingReader(RULES.onboarding, RULES.classifier)


@pytest.mark.parametrize(
    "text",
    [
        "коли сіяти соняшник?",
        "коли сіяти соняшник",  # a question word, no question mark
        "як боротися з попелицею",
        "запиши полив 20 мм на Північному вчора",
        "посіяли соняшник на полі Північне 45 га",
        "зроби звіт в excel за жовтень",
        "яка вологість на полі 2",
        "статус сервісів",
        "привіт",
        "/me",
        "when should I sow maize",
    ],
)
def test_a_question_or_a_request_interrupts(text: str) -> None:
    assert READER.interrupts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Олена Петрівна",
        "Іван",
        "ТОВ Зоря-Агро",
        "Полтавська область",
        "Північне 40 га, поле 3 — 85 га",
        "пшениця, соняшник",
        "соя",
        "так",
        "ні",
        "15 років",
        "тільки починаю",
        "",
    ],
)
def test_an_answer_does_not_interrupt(text: str) -> None:
    assert not READER.interrupts(text)


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("так", OnboardingChoice.SENSORS_YES),
        ("Так, є", OnboardingChoice.SENSORS_YES),
        ("да", OnboardingChoice.SENSORS_YES),
        ("ні", OnboardingChoice.SENSORS_NO),
        ("немає", OnboardingChoice.SENSORS_NO),
        ("no", OnboardingChoice.SENSORS_NO),
    ],
)
def test_sensors_typed(text: str, choice: OnboardingChoice) -> None:
    assert READER.sensors(text) == OnboardingAction(choice)


def test_sensors_unreadable() -> None:
    assert READER.sensors("може колись") is None


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ("коротко", "brief"),
        ("краще коротко", "brief"),
        ("детально", "detailed"),
        ("докладно будь ласка", "detailed"),
        ("розмовно", "conversational"),
        ("short", "brief"),
    ],
)
def test_style_typed(text: str, style: str) -> None:
    assert READER.style(text) == OnboardingAction(OnboardingChoice.STYLE, style=style)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("1 рік", "novice"),
        ("2,5 роки", "novice"),
        ("3 роки", "intermediate"),
        ("років 7", "intermediate"),
        ("10 років", "expert"),
        ("вже 25 років", "expert"),
        ("тільки починаю", "novice"),
        ("я новачок", "novice"),
        ("кілька років", "intermediate"),
        ("все життя", "expert"),
        ("я агроном", "expert"),
    ],
)
def test_experience_typed(text: str, level: str) -> None:
    assert READER.experience(text) == OnboardingAction(OnboardingChoice.LEVEL, level=level)  # type: ignore[arg-type]


def test_experience_unreadable() -> None:
    assert READER.experience("не пам'ятаю") is None


def test_year_thresholds_come_from_the_rules() -> None:
    rules = RULES.onboarding
    assert rules.level_for_years(rules.novice_below_years - 0.5) == "novice"
    assert rules.level_for_years(rules.novice_below_years) == "intermediate"
    assert rules.level_for_years(rules.expert_from_years) == "expert"


def test_inconsistent_thresholds_are_refused(tmp_path: Path) -> None:
    text = ONBOARDING_RULES.read_text(encoding="utf-8")
    broken = tmp_path / "onboarding.toml"
    broken.write_text(
        text.replace("novice_below_years = 3", "novice_below_years = 30"), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="novice_below_years"):
        OnboardingRules.load(RULES.grammar, broken)


def test_a_missing_group_is_named(tmp_path: Path) -> None:
    text = ONBOARDING_RULES.read_text(encoding="utf-8")
    broken = tmp_path / "onboarding.toml"
    broken.write_text(text.replace("\nbrief = [", "\nshort = ["), encoding="utf-8")
    with pytest.raises(ValueError, match="brief"):
        OnboardingRules.load(RULES.grammar, broken)

"""Routing by meaning, not by sentence: each rule here is written once in
``pipeline/rules/classifier.toml`` and must hold for phrasings no corpus has."""

from __future__ import annotations

import pytest

from pipeline.gate import select_crew
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext


def routed(rules: Rulebook, text: str) -> tuple[str, str, tuple[str, ...]]:
    decision = rules.classifier.classify(text, ClassifierContext())
    return decision.mode, decision.intent, select_crew(decision, has_iot=True)


@pytest.mark.parametrize(
    "text",
    ["скіко внесли селітри за сезон", "скока посіяли соняшнику всього", "скоко внесли азоту"],
)
def test_how_much_in_any_spelling_is_a_question_not_a_record(rules: Rulebook, text: str) -> None:
    assert routed(rules, text)[1] != "recording"


@pytest.mark.parametrize(
    "text",
    [
        "температура грунту підскочила на полі 4",
        "soil moisture plunged on field 2",
        "влажность почвы резко снизилась на поле 7",
    ],
)
def test_a_reading_that_jumped_is_an_alert(rules: Rulebook, text: str) -> None:
    assert routed(rules, text) == ("deep", "iot_alert", ("iot",))


def test_a_notification_from_a_sensor_is_an_alert(rules: Rulebook) -> None:
    assert routed(rules, "пришло уведомление с датчика на поле 3")[1] == "iot_alert"
    # ... while notifications alone are no alert.
    assert routed(rules, "вимкни сповіщення")[1] != "iot_alert"


@pytest.mark.parametrize(
    "text", ["чому вилягає ячмінь", "why is my corn lodging", "почему вянет подсолнечник"]
)
def test_a_crops_symptom_and_why_is_a_decision(rules: Rulebook, text: str) -> None:
    assert routed(rules, text)[:2] == ("deep", "decision")


@pytest.mark.parametrize(
    "text", ["статистика обприскувань за сезон", "порівняй норми висіву сої по полях"]
)
def test_a_comparison_of_the_farms_figures_is_analysis(rules: Rulebook, text: str) -> None:
    assert routed(rules, text) == ("deep", "analysis", ("sustainability",))


def test_which_crop_pays_better_is_a_decision(rules: Rulebook) -> None:
    mode, intent, crew = routed(rules, "що вигідніше посіяти на 5 полі, глянь статистику")
    assert (mode, intent) == ("deep", "decision")
    assert "sustainability" in crew

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


@pytest.mark.parametrize(
    "text",
    [
        "полив на полі 5 завтра",
        "spraying tomorrow on field 2",
        "обприскування поля 5 в суботу",
        "we are going to spray tomorrow",
    ],
)
def test_an_operation_with_its_field_or_day_ahead_is_recorded(rules: Rulebook, text: str) -> None:
    assert routed(rules, text) == ("deep", "recording", ("ops",))


def test_a_plan_for_the_day_is_still_planning(rules: Rulebook) -> None:
    assert routed(rules, "сплануй обприскування на суботу")[1] == "planning"


@pytest.mark.parametrize(("text", "intent"), [("що вмієш?", "help"), ("what can u do", "help")])
def test_a_left_out_or_texted_pronoun(rules: Rulebook, text: str, intent: str) -> None:
    assert routed(rules, text) == ("light", intent, ())


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("здарова", "greeting"),
        ("мои данные", "whoami"),
        ("как жизнь", "smalltalk"),
        ("как приготовить шашлык", "offtopic"),
    ],
)
def test_colloquial_pleasantries(rules: Rulebook, text: str, intent: str) -> None:
    assert routed(rules, text) == ("light", intent, ())


def test_why_a_sensor_shows_something_is_an_alert(rules: Rulebook) -> None:
    assert routed(rules, "почему датчик на поле 2 показывает 80 градусов")[1] == "iot_alert"

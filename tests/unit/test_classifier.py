"""The rule-based depth classifier against every rule of shared/corpus/LABELS.md.

The phrasings here are deliberately NOT the corpus lines (a guard test checks it):
other inflections, apostrophes, typos, Russian, English, emoji, no punctuation.
Crews are compared AFTER the activation gate, as LABELS.md defines them.
"""

from __future__ import annotations

import json
import logging
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.classifier import DEFAULT_RULES, Classifier
from pipeline.gate import select_crew
from pipeline.grammar import Grammar
from pipeline.text import NormalizedText, tokenize
from pipeline.types import CREW_NAMES, ClassifierContext, DepthDecision

REPO = Path(__file__).resolve().parents[2]
#: The labelled dev corpus, packaged with the nightly job (a copy of
#: shared/corpus/routing-dev.jsonl); STEPAN_ROUTING_CORPUS points at another one.
CORPUS = Path(
    os.environ.get("STEPAN_ROUTING_CORPUS", REPO / "pipeline/learning/data/routing-dev.jsonl")
)

Case = tuple[str, str, str, tuple[str, ...]]  # text, mode, intent, crew after the gate


@pytest.fixture(scope="module")
def clf() -> Classifier:
    # The word rules alone: the Rulebook's classifier also has the knowledge base's
    # probes (an agronomy question is advice), which these cases do not test.
    return Classifier.from_file()


def route(clf: Classifier, text: str, **ctx: Any) -> tuple[DepthDecision, tuple[str, ...]]:
    context = ClassifierContext(**ctx)
    decision = clf.classify(text, context)
    return decision, select_crew(decision, has_iot=context.has_iot)


def check(clf: Classifier, case: Case, **ctx: Any) -> DepthDecision:
    text, mode, intent, crew = case
    decision, gated = route(clf, text, **ctx)
    got = (decision.mode, decision.intent, gated)
    assert got == (mode, intent, crew), f"{text!r}: {decision}"
    return decision


# =========================================================================== light intents

LIGHT: list[Case] = [
    ("привітик", "light", "greeting", ()),
    ("Добрий вечір, Степане 🙂", "light", "greeting", ()),
    ("Вечір добрий", "light", "greeting", ()),
    ("здрастуйте", "light", "greeting", ()),
    ("hey stepan", "light", "greeting", ()),
    ("Слава Україні!", "light", "greeting", ()),
    ("прівіт", "light", "greeting", ()),  # typo
    ("дуже дякую!!!", "light", "thanks", ()),
    ("спасибо тебе", "light", "thanks", ()),
    ("thank you so much", "light", "thanks", ()),
    ("дякую за звіт", "light", "thanks", ()),  # "thanks for the report" asks for nothing
    ("thanks for the report", "light", "thanks", ()),
    ("окей", "light", "ack", ()),
    ("окі👍👍", "light", "ack", ()),
    ("👌", "light", "ack", ()),
    ("ну добре, домовилися", "light", "ack", ()),
    ("all right", "light", "ack", ()),
    ("бувайте", "light", "farewell", ()),
    ("до зустрічі", "light", "farewell", ()),
    ("good night", "light", "farewell", ()),
    ("кто я такой", "light", "whoami", ()),
    ("яка в мене роль", "light", "whoami", ()),
    ("who am i?", "light", "whoami", ()),
    ("що ти можеш", "light", "help", ()),
    ("чим ти можеш допомогти", "light", "help", ()),
    ("как тобой пользоваться", "light", "help", ()),
    ("як ся маєш", "light", "smalltalk", ()),
    ("ты робот?", "light", "smalltalk", ()),
    ("how are you doing", "light", "smalltalk", ()),
    ("порадь серіал на вечір", "light", "offtopic", ()),
    ("який рецепт вареників", "light", "offtopic", ()),
    ("what should I cook tonight", "light", "offtopic", ()),
    ("розкажи анекдот", "light", "offtopic", ()),
    ("поле 7", "light", "clarify", ()),
    ("а на другому?", "light", "clarify", ()),
    ("field 12", "light", "clarify", ()),
    ("не зрозумів", "light", "clarify", ()),  # not an acknowledgement
]


@pytest.mark.parametrize("case", LIGHT, ids=lambda c: c[0])
def test_light_intents(clf: Classifier, case: Case) -> None:
    decision = check(clf, case)
    assert decision.crew_needed == ()
    assert decision.confidence >= 0.4


# =========================================================================== deep intents

IOT = ("iot",)
OPS = ("ops",)
MULTI = ("ops", "sustainability")
PLAN = ("iot", "ops", "sustainability")
SUST = ("sustainability",)
SHEET = ("spreadsheet",)
PLATFORM = ("platform",)

DEEP: list[Case] = [
    # recording: any inflection, typos, Russian, English, past tense
    ("запишіть обприскування ріпаку фунгіцидом 0.8 л/га поле 3", "deep", "recording", OPS),
    ("запеши полив поле 2", "deep", "recording", OPS),
    ("зафиксируй посев подсолнечника на поле 8", "deep", "recording", OPS),
    ("сьогодні обприскали пшеницю на полі 6", "deep", "recording", OPS),
    ("вчера полили 20 мм на 2 поле", "deep", "recording", OPS),
    ("поле 8 засіяне ячменем", "deep", "recording", OPS),
    ("внесення КАС на 4 полі завершено", "deep", "recording", OPS),
    ("we sprayed field 4 yesterday", "deep", "recording", OPS),
    ("finished harvesting field 2, 5.8 t/ha", "deep", "recording", OPS),
    ("ЗАПИШИ ПОЛИВ НА ПОЛІ 3", "deep", "recording", OPS),
    # multi_ops
    ("обприскали всі поля соняшнику", "deep", "multi_ops", MULTI),
    ("обробили гербіцидом поля 1, 2 і 3", "deep", "multi_ops", MULTI),
    ("irrigated all fields yesterday", "deep", "multi_ops", MULTI),
    ("посеяли на нескольких полях", "deep", "multi_ops", MULTI),
    # planning
    ("сплануй роботи на наступний тиждень", "deep", "planning", PLAN),
    ("що робимо сьогодні?", "deep", "planning", PLAN),
    ("составь график сева", "deep", "planning", PLAN),
    ("what's the plan for tomorrow", "deep", "planning", PLAN),
    # iot
    ("какая температура почвы на поле 2", "deep", "iot", IOT),
    ("вологисть на 3 полі", "deep", "iot", IOT),  # typo
    ("покажи графік вологості за тиждень", "deep", "iot", IOT),  # a chart, not a schedule
    ("how wet is the soil on field 6", "deep", "iot", IOT),
    # iot_alert
    ("тривога по температурі на полі 8", "deep", "iot_alert", IOT),
    ("датчик на 5 полі не відповідає", "deep", "iot_alert", IOT),
    ("moisture below threshold on field 3", "deep", "iot_alert", IOT),
    # analysis vs summary
    ("порівняй урожайність соняшнику за 3 роки", "deep", "analysis", SUST),
    ("динаміка врожайності пшениці", "deep", "analysis", SUST),
    ("compare corn yield 2023 vs 2024", "deep", "analysis", SUST),
    ("посевная по плану идет?", "deep", "analysis", SUST),
    ("підсумки за квітень", "deep", "summary", SUST),
    ("итоги месяца", "deep", "summary", SUST),
    ("скільки всього внесли добрив за сезон", "deep", "summary", SUST),
    ("monthly summary", "deep", "summary", SUST),
    # reporting (+ what the report is about)
    ("вивантаж операції в ексель", "deep", "reporting", SHEET),
    ("export operations to xlsx", "deep", "reporting", SHEET),
    ("сформуй звіт по вологості з датчиків", "deep", "reporting", ("iot", "spreadsheet")),
    ("звіт з підсумками сезону в excel", "deep", "reporting", ("spreadsheet", "sustainability")),
    # platform
    ("farmOS не синхронізується", "deep", "platform", PLATFORM),
    ("помилка інтеграції з farmOS", "deep", "platform", PLATFORM),
    ("farmos is down", "deep", "platform", PLATFORM),
    # decision: crew from its words only
    ("що робити з бур'янами на кукурудзі", "deep", "decision", ()),
    ("посоветуй когда сеять подсолнечник", "deep", "decision", ()),
    ("should we irrigate field 3 this week?", "deep", "decision", ()),
    ("чи не пізно сіяти гречку", "deep", "decision", ()),
    ("порадь, чи поливати сьогодні, подивись що показують датчики", "deep", "decision", IOT),
]


@pytest.mark.parametrize("case", DEEP, ids=lambda c: c[0])
def test_deep_intents_and_crews(clf: Classifier, case: Case) -> None:
    decision = check(clf, case)
    assert decision.matched_intents[0] == decision.intent


def test_gate_drops_iot_without_iot_integration(clf: Classifier) -> None:
    decision, crew = route(clf, "склади план робіт на пʼятницю", has_iot=False)
    assert decision.crew_needed == PLAN  # before the gate
    assert crew == ("ops", "sustainability")
    decision, crew = route(clf, "яка вологість ґрунту на 4 полі", has_iot=False)
    assert (decision.mode, decision.intent, crew) == ("deep", "iot", ())


def test_spreadsheet_needs_a_report(clf: Classifier) -> None:
    decision, crew = route(clf, "вивантаж таблицю з показами датчиків")
    assert decision.intent == "reporting"
    assert crew == ("iot", "spreadsheet")


# =========================================================================== mixed requests


def test_mixed_request_gets_the_union_of_crews(clf: Classifier) -> None:
    decision, crew = route(clf, "занеси обприскування 3 поля і вивантаж таблицю в xlsx")
    assert decision.mode == "deep"
    assert crew == ("ops", "spreadsheet")
    assert {"recording", "reporting"} <= set(decision.matched_intents)
    assert decision.matched_intents[0] == decision.intent


@pytest.mark.parametrize(
    "text",
    [
        "привіт, запиши культивацію на полі 1",
        "дякую, а тепер сплануй роботу на завтра",
        "ок, тоді яка вологість на 4 полі",
        "доброго ранку, farmOS знову не працює",
        "hi, log 30 mm irrigation on field 2",
    ],
)
def test_a_light_word_inside_a_deep_request_stays_deep(clf: Classifier, text: str) -> None:
    decision, _ = route(clf, text)
    assert decision.mode == "deep"
    assert decision.intent not in {"greeting", "thanks", "ack"}


def test_several_fields_in_one_operation_is_multi_ops_even_when_recorded(
    clf: Classifier,
) -> None:
    for text in (
        "запиши полив на полях 2, 5 і 7",
        "внесли селітру на трьох полях",
        "sprayed fields 1-4",
    ):
        decision, crew = route(clf, text)
        assert (decision.intent, crew) == ("multi_ops", MULTI), text
        assert "recording" in decision.matched_intents


def test_several_fields_without_an_operation_is_not_multi_ops(clf: Classifier) -> None:
    decision, crew = route(clf, "яка вологість по всіх полях")
    assert (decision.intent, crew) == ("iot", IOT)


def test_secondary_intents_recruit_crew_only_on_a_trigger(clf: Classifier) -> None:
    # "показує дані" are two IoT keywords, no trigger: no IoT agent for a platform fault.
    decision, crew = route(clf, "ThingsBoard не показує дані")
    assert (decision.intent, crew) == ("platform", PLATFORM)


def test_a_platform_fault_needs_only_the_platform_agent(clf: Classifier) -> None:
    decision, crew = route(clf, "фармОС не бачить датчиків")
    assert (decision.intent, crew) == ("platform", PLATFORM)


def test_one_word_scores_once_per_intent(clf: Classifier) -> None:
    # "лучше" fits two analysis keywords; counted once it cannot reach analysis alone.
    decision, crew = route(clf, "когда лучше убирать подсолнечник")
    assert (decision.intent, crew) == ("decision", ())


def test_short_stems_are_not_typo_matched(clf: Classifier) -> None:
    # stem "завис" is one letter from "запис" (record): still a platform fault.
    decision, crew = route(clf, "синхронізація з ThingsBoard зависла")
    assert (decision.intent, crew) == ("platform", PLATFORM)
    assert "recording" not in decision.matched_intents


def test_crop_protection_is_not_a_request_for_advice(clf: Classifier) -> None:
    decision, _ = route(clf, "підсумуй витрати на засоби захисту")
    assert decision.intent == "summary"


# =========================================================================== whole words


@pytest.mark.parametrize("text", ["this one?", "рок", "окремо", "think so"])
def test_short_words_match_whole_words_only(clf: Classifier, text: str) -> None:
    decision, _ = route(clf, text)
    assert decision.intent == "clarify", decision


# =========================================================================== forced deep


def test_deep_prefix_forces_deep_and_keeps_classifying(clf: Classifier) -> None:
    decision, crew = route(clf, "--deep ок")
    assert (decision.mode, decision.intent, crew) == ("deep", "ack", ())
    assert "forced:--deep" in decision.reason
    decision, crew = route(clf, "--deep яка температура ґрунту на полі 9")
    assert (decision.mode, decision.intent, crew) == ("deep", "iot", IOT)


def test_phone_dash_prefix_also_forces_deep(clf: Classifier) -> None:
    decision, _ = route(clf, "—deep дякую")
    assert (decision.mode, decision.intent) == ("deep", "thanks")


def test_deep_prefix_needs_a_word_boundary(clf: Classifier) -> None:
    decision, _ = route(clf, "--deeply ok")
    assert "forced:--deep" not in decision.reason


def test_ctx_force_deep(clf: Classifier) -> None:
    decision, crew = route(clf, "спасибі", force_deep=True)
    assert (decision.mode, decision.intent, crew) == ("deep", "thanks", ())
    assert "forced:ctx" in decision.reason


def test_a_recent_alert_forces_deep_keeping_the_intent(clf: Classifier) -> None:
    decision, _ = route(clf, "ок, зрозуміло", recent_alert=True)
    assert (decision.mode, decision.intent) == ("deep", "ack")
    assert "forced:recent_alert" in decision.reason


@pytest.mark.parametrize("text", ["поле біля ставу", "а що на тому полі", "запиши полив 20 мм"])
def test_new_terms_force_a_message_that_can_name_one_deep(clf: Classifier, text: str) -> None:
    light, _ = route(clf, text, pending_terms=0)
    decision, _ = route(clf, text, pending_terms=3)
    assert (decision.mode, decision.intent) == ("deep", light.intent)
    assert "forced:pending_terms=3" in decision.reason


@pytest.mark.parametrize("text", ["ок, зрозуміло", "дякую", "привіт", "хто я", "як справи?"])
def test_new_terms_leave_pleasantries_light(clf: Classifier, text: str) -> None:
    """Seed 3.1 forces deep when the message's own normalisation finds new terms;
    a pleasantry names none, so a field waiting for approval changes nothing."""
    decision, _ = route(clf, text, pending_terms=3)
    assert decision.mode == "light" and "pending_terms" not in decision.reason


def test_zero_pending_terms_do_not_force(clf: Classifier) -> None:
    decision, _ = route(clf, "ок", pending_terms=0)
    assert decision.mode == "light"


# =========================================================================== first contact

FIRST = {"interaction_count": 0}
ALL_BUT_SHEET = ("iot", "ops", "platform", "sustainability")


@pytest.mark.parametrize("text", ["хай", "Добрий вечір!", "hello", "Здравствуйте, Степан"])
def test_first_contact_pure_greeting_stays_light(clf: Classifier, text: str) -> None:
    decision, _ = route(clf, text, **FIRST)
    assert (decision.mode, decision.intent) == ("light", "greeting")


@pytest.mark.parametrize(
    "text",
    [
        "у нас 5 тракторів і 2 комбайни",
        "hello, we are a small dairy farm",
        "добрий вечір! я фермер з Черкащини",
        "поле 3",
    ],
)
def test_first_contact_without_intent_is_general_with_every_crew(
    clf: Classifier, text: str
) -> None:
    decision, crew = route(clf, text, **FIRST)
    assert (decision.mode, decision.intent, crew) == ("deep", "general", ALL_BUT_SHEET)
    assert "first_contact" in decision.reason
    _, crew = route(clf, text, interaction_count=0, has_iot=False)
    assert crew == ("ops", "platform", "sustainability")


def test_first_contact_with_a_real_request_is_routed_normally(clf: Classifier) -> None:
    decision, crew = route(clf, "запиши полив 25 мм на полі 6", **FIRST)
    assert (decision.intent, crew) == ("recording", OPS)


# =========================================================================== no match


def test_long_message_matching_nothing_is_deep_general_with_no_crew(clf: Classifier) -> None:
    for text in (
        "в понеділок приїде механік ремонтувати трактор",
        "the tractor broke down again",
        "ціни на пшеницю сильно впали",
    ):
        decision, crew = route(clf, text)
        assert (decision.mode, decision.intent, crew) == ("deep", "general", ()), text
        assert decision.confidence < 0.4
        assert "low_confidence" in decision.reason


def test_farming_words_beat_offtopic_words(clf: Classifier) -> None:
    decision, _ = route(clf, "наш агроном пішов у відпустку")
    assert (decision.mode, decision.intent) == ("deep", "general")


def test_low_confidence_forces_deep_from_the_rules_data() -> None:
    raw = tomllib.loads(DEFAULT_RULES.read_text("utf-8"))
    raw["confidence"]["per_point"] = 0.01  # a single trigger now scores far below 0.4
    strict = Classifier.from_mapping(raw)
    decision = strict.classify("привіт", ClassifierContext())
    assert (decision.mode, decision.intent) == ("deep", "greeting")
    assert "low_confidence" in decision.reason


# =========================================================================== robustness


def test_any_internal_error_gives_the_fail_safe(
    clf: Classifier, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(text: str) -> NormalizedText:
        raise RuntimeError("rules exploded")

    broken = Classifier(clf.rules, Grammar.load(), normalizer=boom)
    with caplog.at_level(logging.ERROR, logger="pipeline.classifier"):
        decision = broken.classify("запиши полив", ClassifierContext())
    assert decision == DepthDecision.fail_safe()
    assert decision.mode == "deep" and decision.crew_needed == CREW_NAMES
    assert "rules exploded" in caplog.text


@pytest.mark.parametrize(
    "text", ["", "   ", "🙂🙂", "?!?!", "1234", "a" * 5000, "--deep", "\x00\u200b"]
)
def test_odd_input_never_raises(clf: Classifier, text: str) -> None:
    decision = clf.classify(text, ClassifierContext())
    assert decision.mode in ("light", "deep")
    assert decision.intent != "unknown"


def test_token_cache_does_not_change_decisions() -> None:
    cold = Classifier.from_file(token_cache_size=0)
    warm = Classifier.from_file(token_cache_size=2)  # tiny: exercises the reset
    ctx = ClassifierContext()
    for case in LIGHT + DEEP:
        assert cold.classify(case[0], ctx) == warm.classify(case[0], ctx)


# =========================================================================== the dev corpus


def _corpus_rows() -> Iterator[dict[str, Any]]:
    for line in CORPUS.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def test_dev_corpus_accuracy(clf: Classifier) -> None:
    rows = list(_corpus_rows())
    defaults = {"interaction_count": 5, "has_iot": True, "operator": False, "force_deep": False}
    mode_ok = crew_ok = 0
    for row in rows:
        decision, crew = route(clf, row["text"], **{**defaults, **row.get("ctx", {})})
        mode_ok += decision.mode == row["mode"]
        crew_ok += crew == tuple(sorted(row["crew"]))
    assert mode_ok / len(rows) >= 0.97
    assert crew_ok / len(rows) >= 0.92


def test_these_phrasings_are_not_copied_from_the_corpus() -> None:
    corpus = {tokenize(row["text"]) for row in _corpus_rows()}
    mine = [case[0] for case in LIGHT + DEEP]
    copied = [text for text in mine if tokenize(text) in corpus]
    assert not copied

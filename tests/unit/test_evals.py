"""Eval rules: every rule type, the scopes, the default rule set, the footnote."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.learning.evals import EvalContext, EvalRules, Severity
from pipeline.rulebook import Rulebook
from pipeline.types import Language

UK_DEEP = EvalContext("deep", Intent.RECORDING, "uk", "conversational")


def _one(**rule: Any) -> EvalRules:
    base: dict[str, Any] = {"id": "r", "name": {"uk": "правило", "en": "rule"}}
    return EvalRules.from_mapping({"rules": [{**base, **rule}]})


@pytest.mark.parametrize(
    ("rule", "passing", "failing"),
    [
        ({"type": "string_contains", "value": "га"}, "20 мм на 5 ГА", "20 мм"),
        ({"type": "string_not_contains", "value": "--force"}, "git push", "git push --FORCE"),
        ({"type": "regex_match", "pattern": r"\d+ ?мм"}, "полив 20мм", "полив"),
        ({"type": "regex_not_match", "pattern": r"sk-\w{8}"}, "ключ схований", "sk-abcdefgh1"),
        ({"type": "max_length", "limit": 5}, "12345", "123456"),
        ({"type": "min_length", "limit": 3}, "так!", " a  "),
    ],
)
def test_every_rule_type(rule: dict[str, Any], passing: str, failing: str) -> None:
    rules = _one(severity="info", **rule)
    assert rules.check(passing, UK_DEEP).failed == ()
    result = rules.check(failing, UK_DEEP)
    assert result.failed_ids == ("r",)
    assert result.infos == 1 and result.warnings == 0
    assert result.passed  # an info is advice, not a failed reply


def test_scopes_limit_where_a_rule_applies() -> None:
    rules = _one(
        type="max_length",
        limit=3,
        intents=["recording"],
        modes=["deep"],
        languages=["uk"],
        styles=["brief"],
    )
    long = "довга відповідь"
    assert rules.check(long, EvalContext("deep", Intent.RECORDING, "uk", "brief")).failed_ids
    for ctx in (
        EvalContext("light", Intent.RECORDING, "uk", "brief"),
        EvalContext("deep", Intent.REPORTING, "uk", "brief"),
        EvalContext("deep", Intent.RECORDING, "en", "brief"),
        EvalContext("deep", Intent.RECORDING, "uk", "detailed"),
    ):
        result = rules.check(long, ctx)
        assert result.checked == 0 and result.failed == ()


@pytest.mark.parametrize(
    "rule",
    [
        {"type": "nope", "value": "x"},
        {"type": "regex_match", "pattern": "("},
        {"type": "max_length", "limit": 0},
        {"type": "string_contains"},
        {"type": "min_length", "limit": 3, "severity": "fatal"},
        {"type": "min_length", "limit": 3, "intents": ["horoscope"]},
        {"type": "min_length", "limit": 3, "modes": ["medium"]},
    ],
)
def test_bad_rules_stop_loading(rule: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        _one(**rule)


def test_repeated_ids_stop_loading() -> None:
    rule = {"id": "a", "name": {"uk": "a"}, "type": "max_length", "limit": 9}
    with pytest.raises(ValueError, match="repeated"):
        EvalRules.from_mapping({"rules": [rule, rule]})


@pytest.fixture(scope="module")
def defaults() -> EvalRules:
    return EvalRules.load()


@pytest.mark.parametrize(
    ("text", "lang", "style", "rule_id"),
    [
        ("Ваш токен 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw5", "uk", "brief", "no_secrets"),
        ("Підключення: postgresql://stepan:s3cret@db:5432/stepan", "uk", "brief", "no_secrets"),
        ("Задайте STEPAN_LLM_API_KEY у файлі налаштувань", "uk", "brief", "no_env_names"),
        ("Запис 3f2b8c1e-9a7d-4e5f-b6c3-1d2e3f4a5b6c збережено", "uk", "brief", "no_ids"),
        ("Готово (trace_id: 9ab34f12c0de5566)", "uk", "brief", "no_ids"),
        ('Результат: {"field": "Поле 2", "rate": 120}', "uk", "brief", "no_raw_json"),
        ("Полив. " * 120, "uk", "brief", "brief_length"),
        ("Irrigation 20 mm on the north field was recorded.", "uk", "brief", "uk_language"),
        (
            "Записав полив. The operation was saved to the journal.",
            "uk",
            "brief",
            "uk_no_english_run",
        ),
        ("Записав полив, intent recording виконано.", "uk", "brief", "no_internal_english"),
        ("Записав полив, помилка: None", "uk", "brief", "no_internal_english"),
        ("Полив 20 мм на Північному полі записано в журнал.", "en", "brief", "en_language"),
        ("Done: полив на північному полі записано вчора.", "en", "brief", "en_no_cyrillic_run"),
    ],
)
def test_the_default_rules_catch(
    defaults: EvalRules, text: str, lang: Language, style: str, rule_id: str
) -> None:
    result = defaults.check(text, EvalContext("deep", Intent.RECORDING, lang, style))
    assert rule_id in result.failed_ids
    assert not result.passed


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Записав: полив 20 мм на Північному, вчора. Підтвердіть, будь ласка.", "uk"),
        ("Вологість на Полі 2 — 18 %, нижче порогу 22 %. Варто полити.", "uk"),
        ("Звіт в Excel за жовтень готовий: 12 операцій на 3 полях.", "uk"),
        ("Irrigation of 20 mm on Північне, yesterday. Please confirm.", "en"),
    ],
)
def test_the_default_rules_pass_good_replies(
    defaults: EvalRules, text: str, lang: Language
) -> None:
    assert defaults.check(text, EvalContext("deep", Intent.RECORDING, lang, "brief")).failed == ()


def test_stepans_own_templates_pass_the_default_rules(catalog: Catalog, rules: Rulebook) -> None:
    """Every light template, in both languages, passes every warning rule."""
    for lang in ("uk", "en"):
        for key in sorted(catalog.keys(lang)):
            if not key.startswith("light.") or key.endswith("whoami_operator"):
                continue
            text = catalog.text(lang, key, name="Оксана" if lang == "uk" else "Oksana")
            for style in ("brief", "conversational"):
                ctx = EvalContext("light", Intent.GREETING, lang, style)
                result = rules.evals.check(text, ctx)
                assert result.warnings == 0, (lang, key, result.failed_ids)


def test_footnote_lists_warnings_first_in_the_language() -> None:
    rules = EvalRules.from_mapping(
        {
            "rules": [
                {
                    "id": "i",
                    "name": {"uk": "порада", "en": "advice"},
                    "type": "max_length",
                    "limit": 1,
                    "severity": "info",
                },
                {
                    "id": "w",
                    "name": {"uk": "проблема", "en": "problem"},
                    "type": "min_length",
                    "limit": 50,
                },
            ]
        }
    )
    result = rules.check("коротко", UK_DEEP)
    assert [rule.severity for rule in result.failed] == [Severity.INFO, Severity.WARNING]
    assert result.footnote("uk") == "⚠️ проблема\nℹ️ порада"
    assert result.footnote("en") == "⚠️ problem\nℹ️ advice"


_LOOKAHEAD = re.compile(r"^\(\?=\[[^\]]+\]\)")


def _texts(catalog: Catalog) -> list[str]:
    """Real replies (every catalog text) and strings that mix what the patterns look
    for with what a lookahead must not lose: Unicode digits, letters whose case folds
    to ASCII (ſ, K), Cyrillic, punctuation."""
    texts = [
        template
        for lang in ("uk", "en")
        for key in catalog.keys(lang)
        for template in catalog.templates(lang, key)
    ]
    pieces = [
        "123456789:",
        "٣٤٥٦٧٨٩:",
        "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw5",
        "Bearer abcdefghijkl1234",
        "eyJhbGciOi.eyJzdWIiOi",
        "ſk-0123456789abcdef",
        "Kelvin_TOKEN=",
        "STEPAN_LLM_KEY",
        "agx_operator_ids",
        "ſtepan_llm",
        "://user:pw@",
        "3f2b8c1e-9a7d-4e5f-b6c3-1d2e3f4a5b6c",
        "trace id",
        "Request-ID",
        "none",
        "ТРЕЙС",
        "the field was watered today",
        "полив на полі",
        " ",
        ", ",
        "«",
        "\n",
    ]
    rng = random.Random(14)
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    return texts


def test_a_leading_lookahead_changes_no_result(defaults: EvalRules, catalog: Catalog) -> None:
    # evals.toml: a pattern may start with a lookahead of the characters its matches
    # start with (a speed-up); without it the pattern must find exactly the same.
    sped_up = [
        rule for rule in defaults.rules if rule.pattern and _LOOKAHEAD.match(rule.pattern.pattern)
    ]
    texts = _texts(catalog)
    for rule in sped_up:
        assert rule.pattern is not None
        plain = re.compile(_LOOKAHEAD.sub("", rule.pattern.pattern), rule.pattern.flags)
        for text in texts:
            found = rule.pattern.search(text)
            expected = plain.search(text)
            assert (found and found.span()) == (expected and expected.span()), (rule.id, text)
    assert len(sped_up) >= 5

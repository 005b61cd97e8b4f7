"""Text normalisation for uk/ru/en/surzhyk: folding, tokens, stems, typos, whole words."""

from __future__ import annotations

import pytest

from pipeline.text import (
    extract_emoji,
    fold,
    has_phrase,
    has_word,
    is_number,
    normalize,
    prefix_within_one_edit,
    stem,
    tokenize,
    within_one_edit,
)


def _stem(word: str) -> str:
    (token,) = tokenize(word)
    return stem(token)


# ----------------------------------------------------------------------- folding


@pytest.mark.parametrize("word", ["мʼята", "м'ята", "м’ята", "м`ята", "мята", "МʼЯТА"])
def test_every_apostrophe_and_none_give_one_word(word: str) -> None:
    assert tokenize(word) == ("мята",)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("ещё", "еще"),  # ё
        ("проєкт", "проект"),  # Ukrainian є vs Russian е
        ("эксель", "ексель"),  # э
        ("пшеницы", "пшеници"),  # ы folds to и
        ("її", "іі"),  # ї
        ("ґрунт", "грунт"),  # ґ
        ("вологість", "вологiсть"),  # Latin i typed inside a Cyrillic word
        ("кількість", "кілкість"),  # a dropped soft sign is no typo
        ("объект", "обект"),  # hard sign dropped
    ],
)
def test_spelling_variants_fold_together(left: str, right: str) -> None:
    assert tokenize(left) == tokenize(right)


def test_i_and_y_stay_apart_so_fields_are_not_irrigation() -> None:
    # "полів" (of the fields) must not become "полив" (irrigation).
    assert tokenize("полів") != tokenize("полив")


def test_fold_keeps_spacing_and_lowercases() -> None:
    assert fold("Запиши ПОЛИВ") == "запиши полив"


def test_zero_width_and_soft_hyphen_vanish() -> None:
    assert tokenize("по\u00adлив на по\u200bлі") == ("полив", "на", "полі")


# ----------------------------------------------------------------------- tokens and emoji


def test_emoji_and_punctuation_are_separators() -> None:
    assert tokenize("Привіт!!! 👋🙂 як справи???") == ("привіт", "як", "справи")


def test_emoji_are_collected_without_modifiers() -> None:
    assert extract_emoji("ок 👍🏽 ❤️ 🙂") == ("👍", "❤", "🙂")


def test_numbers_keep_decimals_and_split_from_units() -> None:
    assert tokenize("1,5 л/га, 6.1 t/ha, 20мм, КАС-32") == (
        "1,5", "л", "га", "6.1", "t", "ha", "20", "мм", "кас", "32",
    )  # fmt: skip


@pytest.mark.parametrize(("token", "expected"), [("12", True), ("1,5", True), ("5.8", True),
                                                 ("мм", False), ("3д", False)])  # fmt: skip
def test_is_number(token: str, expected: bool) -> None:
    assert is_number(token) is expected


def test_normalize_counts_words_not_emoji() -> None:
    norm = normalize("ок 👍")
    assert norm.tokens == ("ок",)
    assert norm.emoji == ("👍",)
    assert norm.word_count == 1
    assert normalize("👍").word_count == 0


# ----------------------------------------------------------------------- stems


@pytest.mark.parametrize(
    "family",
    [
        ["запиши", "запишіть", "записати", "записав", "запишите", "записал", "записали",
         "запишу", "записувати", "записывать"],
        ["вологість", "вологості", "вологістю"],
        ["влажность", "влажности", "влажностью"],
        ["поле", "полі", "поля", "полях", "полю"],
        ["spraying", "sprayed", "sprays", "spray"],
        ["irrigation", "irrigated", "irrigate", "irrigating"],
        ["planning", "planned", "plans", "plan"],
        ["fields", "field"],
        ["harvested", "harvesting", "harvests"],
    ],
)  # fmt: skip
def test_inflections_share_a_stem(family: list[str]) -> None:
    assert len({_stem(word) for word in family}) == 1, {w: _stem(w) for w in family}


def test_different_words_keep_different_stems() -> None:
    assert _stem("planted") != _stem("planned")
    assert _stem("записати") != _stem("розписати")


@pytest.mark.parametrize("token", ["ок", "hi", "га", "2024", "1,5"])
def test_short_words_and_numbers_are_their_own_stem(token: str) -> None:
    assert stem(token) == token


# ----------------------------------------------------------------------- typos


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("запиши", "запеши", True),  # substitution
        ("вологість", "вологсть", True),  # deletion
        ("сплануй", "спланнуй", True),  # insertion
        ("датчик", "дачтик", True),  # adjacent transposition
        ("датчик", "дачник", False),  # two edits
        ("поле", "поле", True),
        ("abc", "abcde", False),
    ],
)
def test_within_one_edit(a: str, b: str, expected: bool) -> None:
    assert within_one_edit(a, b) is expected
    assert within_one_edit(b, a) is expected


@pytest.mark.parametrize(
    ("token", "prefix", "expected"),
    [
        ("запеши", "запиш", True),
        ("порівнняй", "порівня", True),
        ("обприскуваня", "обприскув", True),
        ("завтра", "завтрак", False),  # the prefix's last letter is missing
        ("сплав", "сплан", False),  # the last letter differs
        ("бланування", "сплан", False),  # the first letter differs
        ("спланувати", "сплан", True),  # plain prefix
    ],
)
def test_prefix_typos_stay_inside_the_prefix(token: str, prefix: str, expected: bool) -> None:
    assert prefix_within_one_edit(token, prefix) is expected


# ----------------------------------------------------------------------- whole words


@pytest.mark.parametrize(
    ("text", "word", "expected"),
    [
        ("this one?", "hi", False),
        ("hi there", "hi", True),
        ("рок-концерт", "ок", False),
        ("окремо запиши", "ок", False),
        ("ну ок", "ок", True),
        ("Ок!", "ок", True),
        ("м'ята", "мʼята", True),
    ],
)
def test_has_word_matches_whole_words_only(text: str, word: str, expected: bool) -> None:
    assert has_word(text, word) is expected


def test_has_phrase_needs_consecutive_words() -> None:
    assert has_phrase("що в нас по плану на завтра", "плану на завтра")
    assert not has_phrase("план робіт на завтра", "план на")
    assert not has_phrase("будь-що", "")

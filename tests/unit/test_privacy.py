"""The sanitiser, as a table: every kind of confidential detail in uk, ru and en goes,
and the farm data that looks like one (dates, rates, brands, "на вулиці") stays."""

from __future__ import annotations

import pytest

from pipeline.crew.contract import REDACTED
from pipeline.crew.contract import sanitize as crew_sanitize
from pipeline.grammar import Grammar
from pipeline.privacy import PrivacyRules, Sanitizer, luhn_valid


@pytest.fixture(scope="module")
def sanitizer() -> Sanitizer:
    return Sanitizer(PrivacyRules.load(Grammar.load()))


# (text, what must be gone, the kinds reported)
CONFIDENTIAL = [
    # phones
    ("Мій телефон +380 67 123 45 67, пишіть", ["123 45 67", "+380"], {"phone"}),
    ("Дзвоніть 067 123-45-67 після обіду", ["123-45-67"], {"phone"}),
    ("Позвоните по номеру 8 (912) 345-67-89 вечером", ["345-67-89"], {"phone"}),
    ("call me at (555) 123-4567 tomorrow", ["123-4567"], {"phone"}),
    ("мой мобильный 0501234567", ["0501234567"], {"phone"}),
    # e-mails
    ("Пишіть на ivan.petrenko@gmail.com, відповім", ["ivan.petrenko", "gmail"], {"email"}),
    ("Пишите на почту sergey_1980@mail.ru", ["sergey_1980"], {"email"}),
    # passwords and secrets
    ("Мій пароль: qwerty123", ["qwerty123"], {"secret"}),
    ("пароль від пошти — Sonce2024!", ["Sonce2024"], {"secret"}),
    ("my password is hunter2, can you log in?", ["hunter2"], {"secret"}),
    ("пароль от вайфая: kotik_777", ["kotik_777"], {"secret"}),
    ("PIN 4321 від картки", ["4321"], {"secret"}),
    ("my api key is sk-abc123def456ghi789", ["sk-abc123def456ghi789"], {"secret"}),
    ("токен бота 123456789:AAHpxY8w3iXevaQT2rfj97OHLauu9Iq8vY", ["AAHpxY8w3"], {"secret"}),
    ("Мій логін olena_farm, пароль Zirka!77", ["olena_farm", "Zirka"], {"id", "secret"}),
    # IBANs and cards
    ("IBAN UA21 3223 1300 0002 6007 2335 6600 1 для оплати", ["3223 1300", "UA21"], {"iban"}),
    ("переказ на UA213223130000026007233566001", ["UA213223130000026007233566001"], {"iban"}),
    ("рахунок 26007233566001 в банку", ["26007233566001"], {"iban"}),
    ("картка 4149 4393 1234 5678, скиньте", ["4393 1234"], {"card"}),
    ("номер карты 5500-0000-0000-0004", ["5500-0000"], {"card"}),
    ("card 4111111111111111 expires soon", ["4111111111111111"], {"card"}),
    # ids
    ("ІПН 3012345678, це для договору", ["3012345678"], {"id"}),
    ("паспорт серії АА номер 123456", ["123456"], {"id"}),
    ("мій tg:12345 і farm:abc-1", ["tg:12345", "farm:abc-1"], {"id"}),
    ("ИНН 123456789012", ["123456789012"], {"id"}),
    ("trace 3f2b8c1e-9d4a-4c55-8f1e-2b7d9c0a1e33", ["3f2b8c1e"], {"id"}),
    # names
    ("Мене звати Іван Петренко, я фермер", ["Іван", "Петренко"], {"name"}),
    ("Меня зовут Сергей Иванов, у меня вопрос", ["Сергей", "Иванов"], {"name"}),
    ("My name is John Smith and I grow wheat", ["John", "Smith"], {"name"}),
    ("моя дружина Олена питає про дієту", ["Олена"], {"name"}),
    ("пан Коваль просив передати", ["Коваль"], {"name"}),
    ("Dear Mrs. Brown, how much protein?", ["Brown"], {"name"}),
    ("Петренко каже, що пшениця погана", ["Петренко"], {"name"}),
    # addresses
    ("Живу на вул. Шевченка 12, кв. 5", ["Шевченка", "12", "кв. 5"], {"address"}),
    ("Адрес: ул. Мира 15, доставка завтра", ["Мира 15"], {"address"}),
    ("I live at 221B Baker Street, London", ["Baker"], {"address"}),
    # marked private
    ("Між нами, у мене борг 200 тисяч. Що їсти на сніданок?", ["борг", "200"], {"private"}),
    (
        "Скільки калорій у вівсянці (приватно: я на дієті після операції)?",
        ["операції"],
        {"private"},
    ),
    ("Between us, my farm is in debt. What should I eat?", ["debt"], {"private"}),
    ("Между нами, я болею. Какие витамины пить?", ["болею"], {"private"}),
]

# Farm talk that must come out exactly as it went in.
NEAR_MISSES = [
    "Внесли 250 кг/га NPK 16-16-16 на полі 2",
    "12.05.2026 посіяли 10 20 30 40 кг",
    "на вулиці спекотно, +30",
    "трактор John Deere 8R і Massey Ferguson",
    "Київська область, Північне поле",
    "бюджет 1 200 000 грн на сезон",
    "рахунок за світло 2500 грн",
    "ключ на 17 загубив",
    "забув пароль від пошти, як відновити?",
    "Хмельницький район, озима пшениця",
    "у чому секрет врожаю?",
    "координати 50.45, 30.52",
    "площа поля 20 га, pH 6,5",
    "урожай 2025 року: 6,2 т/га, вологість 14%",
    "Ферма 120 га у Полтавській області",
    "how much urea per hectare for winter wheat?",
    "сколько стоит солнечная станция на 30 кВт?",
    "Passwords for the farm Wi-Fi are a pain",
    "2026-05-12 полив 20 мм",
    "ДСТУ 4138-2002 для насіння",
]


@pytest.mark.parametrize(
    ("text", "gone", "kinds"), CONFIDENTIAL, ids=[c[0][:30] for c in CONFIDENTIAL]
)
def test_confidential_details_are_removed(
    sanitizer: Sanitizer, text: str, gone: list[str], kinds: set[str]
) -> None:
    result = sanitizer.sanitize(text)
    for secret in gone:
        assert secret not in result.text, result.text
    assert set(result.found) == kinds
    assert result.confidential
    # What replaced it says what it was.
    for kind in kinds:
        assert sanitizer.rules.tags[kind] in result.text  # type: ignore[index]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_farm_data_that_looks_confidential_stays(sanitizer: Sanitizer, text: str) -> None:
    result = sanitizer.sanitize(text)
    assert result.text == text
    assert not result.confidential


def test_the_table_is_big_enough_in_three_languages() -> None:
    assert len(CONFIDENTIAL) + len(NEAR_MISSES) >= 30
    assert len(NEAR_MISSES) >= 10


def test_a_name_the_caller_knows_goes_in_any_form(sanitizer: Sanitizer) -> None:
    result = sanitizer.sanitize("Оленин чоловік і Олена питають", known_names=["Олена"])
    assert "Олен" not in result.text
    assert result.text == "[name] чоловік і [name] питають"


def test_the_rest_of_the_sentence_stays_readable(sanitizer: Sanitizer) -> None:
    result = sanitizer.sanitize("Мене звати Іван Петренко, що їсти на сніданок?")
    assert result.text == "Мене звати [name], що їсти на сніданок?"


def test_limit_cuts_long_text(sanitizer: Sanitizer) -> None:
    assert len(sanitizer.sanitize("слово " * 200, limit=50).text) == 50


@pytest.mark.parametrize(
    ("digits", "valid"),
    [("4111111111111111", True), ("4111111111111112", False), ("5500000000000004", True)],
)
def test_luhn(digits: str, valid: bool) -> None:
    assert luhn_valid(digits) is valid


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("оплата на UA21 3223 1300 0002 6007 2335 6600 1", "6007 2335"),
        ("картка 4149 4393 1234 5678", "4393 1234"),
        ("https://olena:Zirka77@farm.example/api", "Zirka77"),
    ],
)
def test_the_crews_contract_uses_the_same_shapes(text: str, secret: str) -> None:
    # The in-process crew's sanitiser (no word rules) now catches IBANs, cards and
    # credentials in URLs too.
    cleaned = crew_sanitize(text)
    assert secret not in cleaned and REDACTED in cleaned

"""A name that addresses the farmer takes the vocative in Ukrainian (issue 30 point 1)."""

from __future__ import annotations

import pytest

from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.language.vocative import address
from pipeline.profiles import UserProfile
from pipeline.replies.style import addressed, display_name

#: Real Ukrainian first names and patronymics, men's and women's, by ending.
VOCATIVES = [
    # -а (women's and men's)
    ("Олена", "Олено"),
    ("Ольга", "Ольго"),
    ("Оксана", "Оксано"),
    ("Тетяна", "Тетяно"),
    ("Галина", "Галино"),
    ("Ганна", "Ганно"),
    ("Ірина", "Ірино"),
    ("Микола", "Миколо"),
    ("Лука", "Луко"),
    ("Микита", "Микито"),
    # -я / -ія
    ("Наталя", "Наталю"),
    ("Леся", "Лесю"),
    ("Зоя", "Зоє"),
    ("Ілля", "Ілле"),
    ("Наталія", "Наталіє"),
    ("Марія", "Маріє"),
    ("Юлія", "Юліє"),
    ("Софія", "Софіє"),
    ("Надія", "Надіє"),
    # -ій
    ("Сергій", "Сергію"),
    ("Андрій", "Андрію"),
    ("Юрій", "Юрію"),
    ("Григорій", "Григорію"),
    ("Віталій", "Віталію"),
    # -о
    ("Дмитро", "Дмитре"),
    ("Петро", "Петре"),
    ("Павло", "Павле"),
    ("Марко", "Марку"),
    # consonant endings
    ("Іван", "Іване"),
    ("Василь", "Василю"),
    ("Ігор", "Ігорю"),
    ("Олег", "Олегу"),
    ("Федір", "Федоре"),
    ("Яків", "Якове"),
    ("Тарас", "Тарасе"),
    ("Богдан", "Богдане"),
    ("Олександр", "Олександре"),
    ("Любов", "Любове"),
    # apostrophes, as the farmer typed them
    ("Мар'яна", "Мар'яно"),
    ("Марʼяна", "Марʼяно"),
    ("Дар’я", "Дар’є"),
    # first name and patronymic
    ("Олена Петрівна", "Олено Петрівно"),
    ("Василь Іванович", "Василю Івановичу"),
    ("Олександра Миколаївна", "Олександро Миколаївно"),
    ("Валентина Петрівна", "Валентино Петрівно"),
    ("Валентин Петрович", "Валентине Петровичу"),
    ("Юрій Олегович", "Юрію Олеговичу"),
    ("Ігор Сергійович", "Ігорю Сергійовичу"),
    ("Ганна Яківна", "Ганно Яківно"),
    # a name either gender bears, settled by the patronymic
    ("Женя Олегович", "Женю Олеговичу"),
    ("Саша", "Сашо"),
    # double names
    ("Анна-Марія", "Анно-Маріє"),
    ("Олена Марія", "Олено Маріє"),
]


@pytest.mark.parametrize(("name", "vocative"), VOCATIVES)
def test_ukrainian_names_take_the_vocative(name: str, vocative: str) -> None:
    assert address(name, "uk") == vocative


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        # Surnames stay as written, alone or after a name.
        ("Коваленко", "Коваленко"),
        ("Мельник", "Мельник"),
        ("Олена Петрівна Коваленко", "Олено Петрівно Коваленко"),
        ("Іван Мельник", "Іване Мельник"),
        # What the dictionary does not know as a name: the nominative, never a guess.
        ("Сергей", "Сергей"),
        ("Olena", "Olena"),
        ("Ivan Petrenko", "Ivan Petrenko"),
        ("О. П.", "О. П."),
        ("Agro-Олена", "Agro-Олено"),
        ("", ""),
        ("друже", "друже"),
    ],
)
def test_what_is_not_a_known_name_is_left_as_written(name: str, kept: str) -> None:
    assert address(name, "uk") == kept


@pytest.mark.parametrize(
    ("name", "vocative"),
    [("ОЛЕНА", "ОЛЕНО"), ("олена", "олено"), ("Мар'ЯНА", "Мар'яно")],
)
def test_the_case_is_the_farmers(name: str, vocative: str) -> None:
    assert address(name, "uk") == vocative


def test_an_english_reply_keeps_the_name() -> None:
    assert address("Олена Петрівна", "en") == "Олена Петрівна"
    assert address("Ігор", "en") == "Ігор"


def test_the_profile_is_addressed_in_the_vocative_and_named_in_the_nominative(
    catalog: Catalog,
) -> None:
    uk, en = Texts(catalog, "uk"), Texts(catalog, "en")
    olena = UserProfile(user_id="tg:1", name="Олена")
    assert addressed(olena, uk) == "Олено" and display_name(olena, uk) == "Олена"
    assert addressed(olena, en) == "Олена"
    nobody = UserProfile(user_id="tg:1")
    assert addressed(nobody, uk) == catalog.text("uk", "address.default")

"""The peer directory as data: loaded, checked as it loads, matched through the grammar,
and the clause routing that decides what Stepan keeps."""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.grammar import Grammar
from pipeline.peers.directory import DEFAULT_PEERS, PeerDirectory
from pipeline.peers.routing import PeerRouter, classifier_strength, split_clauses
from pipeline.rulebook import Rulebook
from tests.conftest import REPO


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    with DEFAULT_PEERS.open("rb") as fh:
        return tomllib.load(fh)


@pytest.fixture(scope="module")
def directory(rules: Rulebook) -> PeerDirectory:
    return rules.peers


def test_the_adrs_agents_are_all_there(directory: PeerDirectory) -> None:
    handles = {peer.id: peer.telegram for peer in directory.peers}
    assert handles["helion"] == "@energyunionBot"
    assert handles["nutra"] == "@NutraChat_bot"
    assert handles["druid"] == "@DRUID73bot"
    assert handles["daarwizz"] == "@DAARWIZZBot"
    assert "greenfood" in handles
    assert directory.coordinator is not None and directory.coordinator.id == "daarwizz"
    assert directory.me.id == "agromatrix"
    assert directory.invoke_subject("nutra") == "agent.nutra.invoke"
    assert directory.card_subject("agromatrix") == "agent.agromatrix.card"
    assert directory.deep_link(directory.peers[1]) == "https://t.me/NutraChat_bot"


@pytest.mark.parametrize(
    ("text", "peer"),
    [
        ("що їсти на сніданок?", "nutra"),
        ("порадьте рецепт супу на обід", "nutra"),
        ("what's a good diet to lose weight?", "nutra"),
        ("скільки коштує сонячна станція для дому?", "helion"),
        ("какой генератор взять на случай блэкаута?", "helion"),
        ("чи можна пити вітамін D з магнієм?", "druid"),
        ("how do I register a food cooperative?", "greenfood"),
        ("як продавати крафтовий сир через маркетплейс?", "greenfood"),
        ("до кого звернутися з питанням про податки?", "daarwizz"),
    ],
)
def test_questions_find_their_peer(directory: PeerDirectory, text: str, peer: str) -> None:
    found = directory.match(text)
    assert found is not None and found.peer.id == peer


@pytest.mark.parametrize(
    "text",
    [
        "яку норму азоту дати пшениці?",
        "сонячна погода, коли обприскувати соняшник?",
        "чи окупляться сонячні панелі для зрошення поля?",  # a tie stays with Stepan
        "порадь фільм на вечір",  # off-topic, but nobody's
        "",
    ],
)
def test_stepan_keeps_agronomy_and_nobody_takes_the_rest(
    directory: PeerDirectory, text: str
) -> None:
    assert directory.match(text) is None


def _load(raw: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> None:
    data = copy.deepcopy(raw)
    edit(data)
    PeerDirectory.from_mapping(data, Grammar.load())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["peers"]["nutra"].update(telegram="NutraChat"), "not a bot's @handle"),
        (lambda d: d["peers"]["nutra"].update(telegram="@Nutra_chat"), "not a bot's @handle"),
        (lambda d: d["peers"]["nutra"].update(telegram=""), "telegram is required"),
        (lambda d: d["peers"]["helion"].update(languages=["ukr"]), "two-letter"),
        (lambda d: d["peers"]["helion"].update(context=["farm_name"]), "unknown facts"),
        (lambda d: d["peers"]["helion"].update(format="long"), "format"),
        (lambda d: d["peers"]["helion"].update(time_budget_s=0), "time_budget_s"),
        (lambda d: d["peers"]["druid"].update(domain="energy"), "listed twice"),
        (lambda d: d["peers"]["druid"].update(triggers=["# капсули"]), "cannot be read"),
        (lambda d: d["peers"]["druid"].update(about={"uk": "добавки"}), "uk and en"),
        (
            lambda d: d["peers"]["druid"]["examples"].append("що їсти на сніданок?"),
            "routes to nutra",
        ),
        (lambda d: d["self"]["examples"].append("що їсти на сніданок?"), "Stepan's example"),
        (lambda d: d["peers"].update(nutra2=d["peers"]["nutra"]), "listed twice"),
        (lambda d: d["settings"].update(invoke_subject="agent.invoke"), "{agent_id}"),
        (lambda d: d.update(version=2), "version"),
    ],
)
def test_a_bad_entry_stops_loading_with_its_name(
    raw: dict[str, Any], edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        _load(raw, edit)


def test_a_new_peer_is_data_only(raw: dict[str, Any]) -> None:
    def add(data: dict[str, Any]) -> None:
        data["peers"]["vetbot"] = {
            "name": "Vet",
            "role": "specialist",
            "domain": "veterinary",
            "intent": "vet_advice",
            "telegram": "@VetHelpBot",
            "languages": ["uk"],
            "format": "short",
            "time_budget_s": 20,
            "about": {"uk": "ветеринарія", "en": "veterinary care"},
            "triggers": ["ветеринар*", "=vet"],
            "examples": ["потрібен ветеринар для собаки"],
        }

    data = copy.deepcopy(raw)
    add(data)
    directory = PeerDirectory.from_mapping(data, Grammar.load())
    found = directory.match("де знайти ветеринара?")
    assert found is not None and found.peer.id == "vetbot"


def test_the_card_is_json_a_coordinator_can_read(directory: PeerDirectory) -> None:
    card = directory.me.card(invoke_subject=directory.invoke_subject(directory.me.id))
    decoded = json.loads(json.dumps(card, ensure_ascii=False))
    assert decoded["agent_id"] == "agromatrix"
    assert decoded["invoke"] == "agent.agromatrix.invoke"
    assert decoded["domain"] == "agronomy"
    assert set(decoded["languages"]) == {"uk", "en"}
    assert decoded["formats"] == ["short", "medium", "detailed"]
    assert decoded["examples"]


# --------------------------------------------------------------------------- routing


def test_clauses() -> None:
    assert split_clauses("яке добриво для пшениці і що їсти на сніданок?") == [
        "яке добриво для пшениці",
        "що їсти на сніданок?",
    ]
    assert split_clauses("Полив завтра. А що на обід? And also the weather") == [
        "Полив завтра.",
        "що на обід?",
        "the weather",
    ]


@pytest.fixture(scope="module")
def router(rules: Rulebook) -> PeerRouter:
    return PeerRouter(rules.peers, classifier_strength(rules.classifier))


def test_a_whole_offtopic_question_goes_to_the_peer(router: PeerRouter) -> None:
    route = router.route("що їсти на сніданок?")
    assert route is not None
    assert (route.peer.id, route.question, route.own_text) == (
        "nutra",
        "що їсти на сніданок?",
        None,
    )


def test_a_mixed_question_is_split(router: PeerRouter) -> None:
    route = router.route("яка вологість на полі 2, а також скільки коштує сонячна станція?")
    assert route is not None and route.partial
    assert route.peer.id == "helion"
    assert route.question == "скільки коштує сонячна станція?"
    assert route.own_text == "яка вологість на полі 2"


def test_stepans_own_work_stays_with_stepan(router: PeerRouter) -> None:
    # A report about sales has GreenFood's words, but it is a report Stepan makes.
    assert router.route("зроби звіт про продажі сиру в excel") is None
    assert router.route("запиши полив 20 мм на Північному вчора") is None
    assert router.route("яку норму азоту дати пшениці?") is None


def test_the_peer_wins_when_its_words_outweigh_the_classifiers_claim(
    router: PeerRouter,
) -> None:
    # "records" makes the classifier think of the journal; the co-op's words weigh more.
    route = router.route("how do we keep batch records in our cheese co-op?")
    assert route is not None and route.peer.id == "greenfood"


def test_no_farm_message_of_the_routing_corpus_goes_to_a_peer(router: PeerRouter) -> None:
    """Labelled farm talk (the packaged routing-dev.jsonl): only off-topic messages
    may be offered to a peer; every farm message stays with Stepan."""
    corpus = Path(
        os.environ.get("STEPAN_ROUTING_CORPUS", REPO / "pipeline/learning/data/routing-dev.jsonl")
    )
    rows = [json.loads(line) for line in corpus.read_text("utf-8").splitlines() if line.strip()]
    routed = [(row["intent"], row["text"]) for row in rows if router.route(row["text"])]
    assert routed, "the corpus's breakfast question should reach Nutra"
    assert {intent for intent, _ in routed} == {"offtopic"}, routed

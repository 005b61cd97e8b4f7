"""The handoff contract on the wire: the ADR's fields, structured errors, answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.peers.contract import ContractError, PeerAnswer, PeerContract, parse_answer


def adr_example(**changes: Any) -> dict[str, Any]:
    """The ADR's own example, as a coordinator would send it to Stepan."""
    body: dict[str, Any] = {
        "intent": "agronomy_advice",
        "domain": "agronomy",
        "user_goal": "коли сіяти кукурудзу?",
        "target_agent": "agromatrix",
        "constraints": {"max_response_time": 30, "format": "short", "language": "uk"},
        "context_summary": "Користувач питає про строки сівби",
        "sources": [],
        "privacy_level": "public",
        "requires_consent": True,
    }
    body.update(changes)
    return body


def test_the_adr_example_parses_and_round_trips() -> None:
    contract = PeerContract.parse(json.dumps(adr_example()).encode())
    assert contract.target_agent == "agromatrix"
    assert contract.constraints.max_response_time == 30
    again = PeerContract.parse(contract.to_json())
    assert again == contract
    wire = json.loads(contract.to_json())
    assert set(wire) >= {
        "intent", "domain", "user_goal", "target_agent", "constraints", "context_summary",
        "sources", "privacy_level", "requires_consent",
    }  # fmt: skip
    assert set(wire["constraints"]) == {"max_response_time", "format", "language"}


def test_unknown_fields_are_ignored() -> None:
    contract = PeerContract.parse(json.dumps(adr_example(trace="x", v=2)).encode())
    assert contract.user_goal == "коли сіяти кукурудзу?"


@pytest.mark.parametrize(
    ("payload", "code", "field"),
    [
        (b"not json", "invalid_json", None),
        (b"\xff\xfe", "invalid_json", None),
        (b"[1, 2]", "invalid_json", None),
        (
            json.dumps({k: v for k, v in adr_example().items() if k != "user_goal"}),
            "invalid_contract",
            "user_goal",
        ),
        (json.dumps(adr_example(user_goal="   ")), "invalid_contract", "user_goal"),
        (json.dumps(adr_example(privacy_level="secret")), "invalid_contract", "privacy_level"),
        (json.dumps(adr_example(requires_consent="yes")), "invalid_contract", "requires_consent"),
        (json.dumps(adr_example(sources=["a b"])), "invalid_contract", "sources"),
        (
            json.dumps(adr_example(constraints={"format": "short", "language": "uk"})),
            "invalid_contract",
            "constraints.max_response_time",
        ),
        (
            json.dumps(
                adr_example(
                    constraints={"max_response_time": 500, "format": "short", "language": "uk"}
                )
            ),
            "invalid_contract",
            "constraints.max_response_time",
        ),
        (
            json.dumps(
                adr_example(
                    constraints={"max_response_time": 5, "format": "essay", "language": "uk"}
                )
            ),
            "invalid_contract",
            "constraints.format",
        ),
        (json.dumps(adr_example(target_agent="Agro Matrix")), "invalid_contract", "target_agent"),
    ],
)
def test_invalid_contracts_say_what_is_wrong(
    payload: bytes | str, code: str, field: str | None
) -> None:
    raw = payload.encode() if isinstance(payload, str) else payload
    with pytest.raises(ContractError) as caught:
        PeerContract.parse(raw)
    assert caught.value.code == code
    assert caught.value.field == field


def test_an_error_answer_is_structured() -> None:
    answer = PeerAnswer("agromatrix", error=ContractError("wrong_target", "not me", "target_agent"))
    assert json.loads(answer.to_json()) == {
        "status": "error",
        "agent": "agromatrix",
        "error": {"code": "wrong_target", "field": "target_agent", "message": "not me"},
    }


@pytest.mark.parametrize(
    ("payload", "text"),
    [
        (b'{"status": "ok", "answer": "Eat oats."}', "Eat oats."),
        (b'{"text": "Oats"}', "Oats"),
        ("Вівсянка з ягодами.".encode(), "Вівсянка з ягодами."),
        (b'{"status": "ok", "answer": "a\\u0007b"}', "ab"),
    ],
)
def test_peer_answers_are_read_leniently(payload: bytes, text: str) -> None:
    answer = parse_answer(payload, "nutra")
    assert answer.ok and answer.text == text


@pytest.mark.parametrize(
    "payload", [b'{"status": "error", "error": {"code": "busy"}}', b"{}", b"", b"\xff", b"[]"]
)
def test_peer_errors_and_garbage_are_not_answers(payload: bytes) -> None:
    assert not parse_answer(payload, "nutra").ok


def test_a_long_answer_is_bounded() -> None:
    answer = parse_answer(("x" * 10_000).encode(), "nutra")
    assert answer.text is not None and len(answer.text) <= 3500

"""Activation gate: depth counter per context, crew selection rules."""

from __future__ import annotations

import asyncio

from pipeline import gate
from pipeline.types import CREW_NAMES, DepthDecision


def _decision(intent: str, crew: tuple[str, ...], matched: tuple[str, ...] = ()) -> DepthDecision:
    return DepthDecision("deep", intent, crew, 0.9, "test", matched)


def test_second_entry_in_same_context_is_refused() -> None:
    assert gate.pre_check("t1") is True
    try:
        assert gate.pre_check("t1-nested") is False
    finally:
        gate.release("t1")
    assert gate.current_depth() == 0
    assert gate.pre_check("t2") is True
    gate.release("t2")


async def test_concurrent_tasks_do_not_see_each_other() -> None:
    entered = asyncio.Event()
    results: list[bool] = []

    async def conversation(hold: bool) -> None:
        results.append(gate.pre_check("c"))
        try:
            if hold:
                entered.set()
                await asyncio.sleep(0.05)
            else:
                await entered.wait()
        finally:
            gate.release("c")

    await asyncio.gather(conversation(True), *(conversation(False) for _ in range(20)))
    assert results == [True] * 21


def test_release_never_goes_negative() -> None:
    gate.release("x")
    assert gate.current_depth() == 0


def test_iot_dropped_without_integration() -> None:
    decision = _decision("planning", ("iot", "ops", "sustainability"))
    assert gate.select_crew(decision, has_iot=False) == ("ops", "sustainability")
    assert gate.select_crew(decision, has_iot=True) == ("iot", "ops", "sustainability")


def test_spreadsheet_only_for_reporting() -> None:
    assert gate.select_crew(_decision("general", CREW_NAMES), has_iot=True) == (
        "iot",
        "ops",
        "platform",
        "sustainability",
    )
    assert gate.select_crew(_decision("reporting", ("spreadsheet",)), has_iot=True) == (
        "spreadsheet",
    )
    mixed = _decision("recording", ("ops", "spreadsheet"), ("recording", "reporting"))
    assert gate.select_crew(mixed, has_iot=False) == ("ops", "spreadsheet")


def test_result_is_sorted_by_name() -> None:
    decision = _decision("analysis", ("sustainability", "ops"))
    assert gate.select_crew(decision, has_iot=True) == ("ops", "sustainability")

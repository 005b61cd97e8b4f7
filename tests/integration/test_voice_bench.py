"""bench/voice.py runs small and reports every figure of issue 28 point 7 (figures,
never timings, are checked: the memory the recording takes is one file's order)."""

from __future__ import annotations

from bench import voice


async def test_a_tiny_run_reports_latency_crowd_and_memory() -> None:
    result = await voice.run(messages=2, delay_ms=20, voices=3)
    assert {"ratio", "typed_p99_delay_ms", "voices", "audio_copies"} <= set(result)
    assert result["voices"] == 3
    # One recording at a time, a few copies of it at most: never one per chunk.
    assert 0.5 <= result["audio_copies"] <= 6

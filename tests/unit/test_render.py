"""Splitting long replies for Telegram's 4096-character limit."""

from __future__ import annotations

from bot.delivery.render import TELEGRAM_TEXT_LIMIT, split_text


def test_short_text_is_one_chunk() -> None:
    assert split_text("привіт") == ["привіт"]
    assert split_text("   ") == []


def test_paragraphs_are_kept_whole_and_rejoin() -> None:
    paragraphs = [f"Абзац {i}: " + "полив " * 90 for i in range(20)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    chunks = split_text(text)
    assert len(chunks) > 1
    assert all(0 < len(c) <= TELEGRAM_TEXT_LIMIT for c in chunks)
    assert "\n\n".join(chunks) == text
    assert all(c.startswith("Абзац") for c in chunks)


def test_one_huge_line_is_cut_at_words() -> None:
    text = " ".join(["слово"] * 3000)
    chunks = split_text(text)
    assert all(len(c) <= TELEGRAM_TEXT_LIMIT for c in chunks)
    assert " ".join(chunks) == text


def test_no_whitespace_is_hard_cut() -> None:
    text = "x" * 10_000
    chunks = split_text(text)
    assert [len(c) for c in chunks] == [4096, 4096, 1808]
    assert "".join(chunks) == text

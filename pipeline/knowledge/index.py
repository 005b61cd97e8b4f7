"""The full-text index over the cards: an in-memory SQLite FTS5 table, built once
when the knowledge base loads and independent of the main database (so a
PostgreSQL deployment retrieves exactly as a SQLite one does).

SQLite does not know Ukrainian, so documents and queries are tokenised by the
project's own normalisation (:mod:`pipeline.text`: folded, stemmed) before they
reach FTS5; the ``unicode61`` tokenizer then only splits on spaces. Besides the
stems of its texts, every card carries *concept tags* for its crop (``c_maize``),
topic (``t_seeding_rate``) and the pests and weeds it names (``k12``); the reader
turns a question's crop, topic and pest names (in any language, with typos) into
the same tags, and BM25 ranks cards on tags and words together.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.knowledge.model import Card
from pipeline.text import is_number, stem, tokenize

__all__ = ["CardIndex", "Hit", "crop_tag", "stems", "topic_tag"]

_GENERAL = "general"
#: BM25 weights of (card_id, crop, topic, tags, keywords, body): tags weigh most.
_WEIGHTS = (0.0, 0.0, 0.0, 6.0, 2.0, 1.0)
_SAFE = re.compile(r"[^a-z0-9_]")


def crop_tag(crop: str) -> str:
    return "c_" + _SAFE.sub("_", crop.removeprefix("crop:").lower())


def topic_tag(topic: str) -> str:
    return "t_" + _SAFE.sub("_", topic.lower())


def stems(text: str) -> list[str]:
    """Folded stems of the words of ``text`` (numbers left out)."""
    return [stem(token) for token in tokenize(text) if not is_number(token)]


@dataclass(frozen=True, slots=True)
class Hit:
    card: str
    #: BM25 as FTS5 gives it: lower (more negative) is better.
    score: float


class CardIndex:
    """One FTS5 table; :meth:`search` is a single indexed query."""

    def __init__(self, documents: Iterable[tuple[Card, Sequence[str], Sequence[str]]]) -> None:
        """``documents``: each card with its extra tags and its keyword texts."""
        # Read-only after building; the bot may query from any thread.
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE cards USING fts5("
            "card_id UNINDEXED, crop UNINDEXED, topic UNINDEXED, tags, keywords, body, "
            "tokenize = \"unicode61 remove_diacritics 0 tokenchars '_'\")"
        )
        rows = []
        for card, tags, keywords in documents:
            body = " ".join([card.text.uk, card.text.en, *self._item_texts(card)])
            rows.append(
                (
                    card.id,
                    card.crop or _GENERAL,
                    card.topic,
                    " ".join(tags),
                    " ".join(s for text in keywords for s in stems(text)),
                    " ".join(stems(body)),
                )
            )
        self._db.executemany("INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?)", rows)
        self._db.commit()
        self.size = len(rows)

    @staticmethod
    def _item_texts(card: Card) -> list[str]:
        texts: list[str] = []
        for item in card.items:
            texts += [item.name.uk, item.name.en]
            for extra in (item.note, item.window):
                if extra is not None:
                    texts += [extra.uk, extra.en]
        return texts

    def search(
        self,
        tags: Sequence[str],
        words: Sequence[str],
        *,
        crops: Sequence[str] | None = None,
        topics: Sequence[str] | None = None,
        limit: int = 5,
    ) -> list[Hit]:
        """Cards matching any tag or word, best first; ``crops`` ("general" for the
        general cards) and ``topics`` restrict where to look."""
        terms = [f'"{tag}"' for tag in dict.fromkeys(tags)]
        terms += [f'"{word}"*' if len(word) >= 4 else f'"{word}"' for word in dict.fromkeys(words)]
        if not terms:
            return []
        sql = (
            "SELECT card_id, bm25(cards, ?, ?, ?, ?, ?, ?) AS score FROM cards WHERE cards MATCH ?"
        )
        params: list[object] = [*_WEIGHTS, " OR ".join(terms)]
        for column, allowed in (("crop", crops), ("topic", topics)):
            if allowed is not None:
                if not allowed:
                    return []
                sql += f" AND {column} IN ({', '.join('?' for _ in allowed)})"
                params += list(allowed)
        sql += " ORDER BY score LIMIT ?"
        params.append(limit)
        return [Hit(card, score) for card, score in self._db.execute(sql, params)]

    def close(self) -> None:
        self._db.close()


def documents(
    cards: Sequence[Card],
    crop_names: Mapping[str, Sequence[str]],
    topic_terms: Mapping[str, Sequence[str]],
    keyword_labels: Mapping[str, Sequence[str]],
) -> list[tuple[Card, list[str], list[str]]]:
    """Each card with its tags (crop, topic, its items' keyword labels) and the
    names and terms that describe it (crop synonyms, topic terms, item terms)."""
    out: list[tuple[Card, list[str], list[str]]] = []
    for card in cards:
        tags = [topic_tag(card.topic), *keyword_labels.get(card.id, ())]
        keywords = [term.replace("*", "") for term in topic_terms.get(card.topic, ())]
        if card.crop is not None:
            tags.append(crop_tag(card.crop))
            keywords += list(crop_names.get(card.crop, ()))
        for item in card.items:
            if item.crop is not None:
                tags.append(crop_tag(item.crop))
            keywords += [term.replace("*", "") for term in item.terms]
        keywords += [term.replace("*", "") for term in card.keywords]
        out.append((card, tags, keywords))
    return out

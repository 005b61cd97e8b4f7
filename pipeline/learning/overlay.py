"""The routing-rules overlay (docs/learning.md): terms an operator approved, added to
the packaged classifier rules as data, without a restart, on every instance.

``rule_overlays`` holds versions; each is the whole list of added terms, and the
newest one not rolled back is in force. ``LiveClassifier`` stands where the
classifier stands (the pipeline calls ``classify``) and re-reads the version in force
at most every ``REFRESH`` (and at once after this process's own change), recompiling
only when it changed. A version that fails to compile is logged and skipped: the
previous rules stay.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from db.repositories import learning as repo
from db.states import ProposalStatus
from db.uow import Database
from pipeline.classifier import Classifier, ClassifierRules
from pipeline.classifier.analysis import Analysis
from pipeline.classifier.decision import Probe
from pipeline.classifier.model import IntentModel
from pipeline.classifier.rules import IntentSpec, Settings
from pipeline.grammar import Grammar
from pipeline.intents import Intent
from pipeline.types import ClassifierContext, DepthDecision

__all__ = ["KEEP_VERSIONS", "REFRESH_S", "LiveClassifier", "OverlayTerm", "RuleOverlays"]

logger = logging.getLogger(__name__)

#: Issue 13: «keeps the last 3 versions for /rules rollback».
KEEP_VERSIONS = 3
#: Another instance's approval is in force here within this many seconds.
REFRESH_S = 30.0

TermKind = Literal["trigger", "keyword"]


@dataclass(frozen=True, slots=True)
class OverlayTerm:
    intent: Intent
    kind: TermKind
    term: str

    def as_data(self) -> dict[str, str]:
        return {"intent": self.intent.value, "kind": self.kind, "term": self.term}

    @classmethod
    def of(cls, raw: Mapping[str, str]) -> OverlayTerm:
        kind = raw["kind"]
        if kind not in ("trigger", "keyword"):
            raise ValueError(f"overlay: unknown term kind {kind!r}")
        return cls(
            Intent(raw["intent"]), "trigger" if kind == "trigger" else "keyword", raw["term"]
        )


@dataclass(frozen=True, slots=True)
class OverlayVersion:
    id: int
    terms: tuple[OverlayTerm, ...]
    rolled_back: bool
    created_by: str


def compile_overlay(
    base: ClassifierRules,
    grammar: Grammar,
    terms: Iterable[OverlayTerm],
    probes: Mapping[str, Probe] | None = None,
    model: IntentModel | None = None,
) -> Classifier:
    """The rules plus the overlay's terms; ``probes`` and ``model`` are the packaged
    classifier's (the knowledge base scoring the advice intent keeps doing so, the
    learned fallback keeps reading what the rules are unsure of)."""
    return Classifier(
        base.with_terms((t.intent, t.kind, t.term) for t in terms),
        grammar,
        probes=probes,
        model=model,
    )


class LiveClassifier:
    """The packaged rules plus the overlay in force; used exactly like ``Classifier``."""

    def __init__(
        self,
        base: Classifier,
        grammar: Grammar,
        db: Database,
        *,
        refresh_s: float = REFRESH_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._base = base
        self._grammar = grammar
        self._db = db
        self._refresh_s = refresh_s
        self._monotonic = monotonic
        self._current = base
        self._version: int | None = None
        self._read_at: float | None = None
        self._lock = asyncio.Lock()

    @property
    def version(self) -> int | None:
        """The overlay version in force here (None: the packaged rules alone)."""
        return self._version

    @property
    def current(self) -> Classifier:
        return self._current

    @property
    def rules(self) -> ClassifierRules:
        return self._current.rules

    @property
    def intents(self) -> Mapping[Intent, IntentSpec]:
        return self._current.intents

    @property
    def settings(self) -> Settings:
        return self._current.settings

    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision:
        return self._current.classify(text, ctx)

    def chosen(self, intent: Intent) -> DepthDecision:
        return self._current.chosen(intent)

    def analyse(self, text: str) -> Analysis:
        return self._current.analyse(text)

    async def refresh(self, *, force: bool = False) -> None:
        """Pick up the version in force if it changed; never raises (the rules in
        use stay on any failure)."""
        now = self._monotonic()
        if not force and self._read_at is not None and now - self._read_at < self._refresh_s:
            return
        async with self._lock:
            self._read_at = now
            try:
                async with self._db.read() as session:
                    row = await repo.overlay_in_force(session)
                    version, raw = (None, []) if row is None else (row.id, list(row.terms))
            except Exception:
                logger.warning("rules overlay: cannot read the version in force", exc_info=True)
                return
            if version == self._version:
                return
            try:
                terms = [OverlayTerm.of(item) for item in raw]
                compiled = (
                    self._base
                    if not terms
                    else await asyncio.to_thread(
                        compile_overlay,
                        self._base.rules,
                        self._grammar,
                        terms,
                        self._base.probes,
                        self._base.model,
                    )
                )
            except Exception:
                logger.exception("rules overlay %s does not compile; keeping the rules", version)
                return
            self._current, self._version = compiled, version
            logger.info("rules overlay: version %s in force (%d terms)", version, len(terms))


class RuleOverlays:
    """Approving a term (a new version), rolling back, and the list for /rules."""

    def __init__(self, db: Database, live: LiveClassifier | None = None) -> None:
        self._db = db
        self._live = live

    async def versions(self) -> list[OverlayVersion]:
        async with self._db.read() as session:
            rows = await repo.overlay_versions(session)
            return [
                OverlayVersion(
                    r.id, tuple(OverlayTerm.of(t) for t in r.terms), r.rolled_back, r.created_by
                )
                for r in rows
            ]

    async def add(
        self, terms: Iterable[OverlayTerm], by: str, proposal_id: int | None = None
    ) -> int:
        """A new version: the one in force plus ``terms``; returns its id."""
        async with self._db.write() as session:
            current = await repo.overlay_in_force(session)
            merged = [OverlayTerm.of(t) for t in (current.terms if current else [])]
            merged += [t for t in terms if t not in merged]
            row = await repo.add_overlay(
                session, [t.as_data() for t in merged], by, proposal_id, KEEP_VERSIONS
            )
            version = row.id
        await self._changed()
        return version

    async def rollback(self) -> tuple[int | None, int | None]:
        """Undo the version in force: (the version undone, the one now in force)."""
        async with self._db.write() as session:
            undone = await repo.roll_back_overlay(session)
            now = await repo.overlay_in_force(session)
            result = (undone.id if undone else None, now.id if now else None)
        await self._changed()
        return result

    async def decide(self, proposal_id: int, *, approve: bool, by: str) -> tuple[str, int | None]:
        """An operator's ✅ / ❌ on a nightly proposal: (approved | rejected | missing |
        decided, the new version's id when approved). Approving applies it as data."""
        async with self._db.write() as session:
            row = await repo.proposal(session, proposal_id)
            if row is None:
                return "missing", None
            if row.status != ProposalStatus.PENDING:
                return "decided", None
            row.status = ProposalStatus.APPROVED if approve else ProposalStatus.REJECTED
            row.decided_by = by
            row.decided_at = datetime.now(UTC)
            term = OverlayTerm.of({"intent": row.intent, "kind": row.kind, "term": row.term})
        if not approve:
            return "rejected", None
        return "approved", await self.add([term], by=by, proposal_id=proposal_id)

    async def _changed(self) -> None:
        if self._live is not None:
            await self._live.refresh(force=True)

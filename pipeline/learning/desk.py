"""The conversation side of learning: the buttons the pipeline puts under replies
(👍 / 👎 / 🛠 under deep answers, 🔀 for operators), what their presses answer, and a
farmer's «ні, я хотів …» turned into an offer to correct the previous reply."""

from __future__ import annotations

import re
from typing import Protocol

from pipeline.actions import CorrectionAction, FeedbackAction, FeedbackReasonAction
from pipeline.language.catalog import Catalog
from pipeline.learning.corrections import Corrections
from pipeline.learning.feedback import FeedbackDesk, FeedbackOutcome, Learnings
from pipeline.learning.kinds import FeedbackReason, FeedbackVerdict
from pipeline.types import Button, ClassifierContext, DepthDecision, Incoming, Language, Reply

_PUNCT = re.compile(r"[^\w\s]+")

LearningAction = FeedbackAction | FeedbackReasonAction | CorrectionAction


class _Classifier(Protocol):
    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...


def correction_rest(text: str, cues: tuple[str, ...]) -> str | None:
    """What follows a correction cue at the start of ``text`` («ні, я хотів X» -> "x")."""
    plain = " ".join(_PUNCT.sub(" ", text.lower().replace("’", "'")).split())
    for cue in cues:
        if plain.startswith(cue + " "):
            return plain[len(cue) :].strip()
    return None


def _rows(buttons: tuple[Button, ...], width: int) -> tuple[tuple[Button, ...], ...]:
    return tuple(buttons[i : i + width] for i in range(0, len(buttons), width))


class LearningDesk:
    def __init__(
        self,
        catalog: Catalog,
        classifier: _Classifier,
        learnings: Learnings,
        feedback: FeedbackDesk,
        corrections: Corrections,
    ) -> None:
        self._catalog = catalog
        self._classifier = classifier
        self.learnings = learnings
        self.feedback = feedback
        self.corrections = corrections

    def feedback_row(self, lang: Language, trace_id: str) -> tuple[Button, ...]:
        return tuple(
            Button(self._catalog.text(lang, f"learning.{v}"), FeedbackAction(v, trace_id))
            for v in FeedbackVerdict
        )

    def misrouted_row(self, lang: Language, trace_id: str) -> tuple[Button, ...]:
        return (Button(self._catalog.text(lang, "learning.misrouted"), CorrectionAction(trace_id)),)

    async def before(self, incoming: Incoming, lang: Language) -> Reply | None:
        """Refresh the LEARNINGS block (TTL-cached: at most one short read a minute);
        answer «ні, я хотів записати операцію» with a correction offer."""
        await self.learnings.refresh()
        cues = self.learnings.rules.correction_cues
        rest = correction_rest(incoming.text, cues) if incoming.text else None
        if not rest:
            return None
        previous = await self.corrections.previous(incoming.user_id)
        if previous is None:
            return None
        trace_id, was = previous
        decision = self._classifier.classify(rest, ClassifierContext())
        meant = decision.intent
        # Only what a rule recognised: "clarify" or "general" says nothing they meant.
        if not decision.reason.startswith("rule:") or meant == was:
            return None
        if meant not in self.corrections.choices:
            return None
        text = self._catalog.text
        label = text(lang, f"learning.intent.{meant}")
        yes = Button(text(lang, "learning.offer_yes"), CorrectionAction(trace_id, meant))
        return Reply(text(lang, "learning.offer_correction", intent=label), ((yes,),), intent=meant)

    async def on_action(
        self, action: LearningAction, incoming: Incoming, lang: Language
    ) -> Reply | None:
        """The answer to a press; None for a reply that is not this person's (expired)."""
        text = self._catalog.text
        match action:
            case FeedbackAction(verdict=verdict, trace_id=trace_id):
                outcome = await self.feedback.record(
                    user_id=incoming.user_id,
                    trace_id=trace_id,
                    verdict=verdict,
                    operator=incoming.is_operator,
                )
                if outcome is FeedbackOutcome.UNKNOWN:
                    return None
                if outcome is FeedbackOutcome.DUPLICATE:
                    return Reply(text(lang, "learning.already"))
                if verdict is FeedbackVerdict.DOWN:
                    reasons = tuple(
                        Button(
                            text(lang, f"learning.reason.{r}"), FeedbackReasonAction(r, trace_id)
                        )
                        for r in FeedbackReason
                    )
                    return Reply(text(lang, "learning.what_wrong"), _rows(reasons, 2))
                return Reply(text(lang, f"learning.thanks_{verdict}"))
            case FeedbackReasonAction(reason=reason, trace_id=trace_id):
                done = await self.feedback.reason(
                    user_id=incoming.user_id, trace_id=trace_id, reason=reason
                )
                return Reply(text(lang, "learning.thanks_reason" if done else "learning.already"))
            case CorrectionAction(trace_id=trace_id, intent=None):
                choices = tuple(
                    Button(text(lang, f"learning.intent.{i}"), CorrectionAction(trace_id, i))
                    for i in self.corrections.choices
                )
                return Reply(text(lang, "learning.choose_intent"), _rows(choices, 3))
            case CorrectionAction(trace_id=trace_id, intent=intent) if intent is not None:
                corrected = await self.corrections.correct(
                    trace_id=trace_id,
                    intent=intent,
                    user_id=incoming.user_id,
                    operator=incoming.is_operator,
                )
                if corrected is None:
                    return Reply(text(lang, "learning.correction_unknown"))
                label = text(lang, f"learning.intent.{intent}")
                return Reply(text(lang, "learning.corrected", intent=label))
        return None

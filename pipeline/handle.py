"""handle_message: one message in, one reply out, in the seed's order (section 2):
gate.pre_check -> profiles.load -> classify -> light | deep -> reflection ->
interactions.record -> gate.release (finally). Every step has a fallback; nothing raises
out of handle_message (seed section 10). The pipeline owns its transactions: each step
that touches the database opens its own short one through the service it calls
(docs/ARCHITECTURE.md, "Transactions"), so none is open while a reply is composed or
an LLM is waited for."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from pipeline import gate
from pipeline.actions import (
    HELP_EXAMPLES,
    Action,
    CorrectionAction,
    ExampleAction,
    FeedbackAction,
    FeedbackReasonAction,
    HandoffAction,
    JournalAction,
    JournalReportAction,
    OnboardingAction,
    OnboardingChoice,
    RefreshAction,
    StyleAction,
)
from pipeline.agronomy.advisor import AdviceRequest, Advisor, as_advice, wants_advice
from pipeline.agronomy.pictures import picture_reply
from pipeline.clock import Clock, utcnow
from pipeline.deep import DeepPath
from pipeline.farm.journal.export import JournalExport
from pipeline.farm.journal.service import Journal
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.choice import LanguageChoice, LanguageRules, message_language, reply_language
from pipeline.learning.desk import LearningDesk
from pipeline.learning.evals import EvalContext, EvalResult, EvalRules
from pipeline.memory import (
    InteractionRecord,
    InteractionRecorder,
    Loaded,
    ProfileEditor,
    ProfileLoader,
    StoreUnavailable,
)
from pipeline.peers.desk import HandoffDesk
from pipeline.peers.routing import Route
from pipeline.profiles import STYLES, UserProfile, classifier_context
from pipeline.recall import Recall
from pipeline.replies import reflection
from pipeline.replies.light import LightRequest, LightResponder
from pipeline.replies.voice import operator_footer, voice_of
from pipeline.text import clean_input
from pipeline.types import (
    Button,
    ClassifierContext,
    DeepRequest,
    DepthDecision,
    Incoming,
    Language,
    Reply,
)

logger = logging.getLogger(__name__)

# Bot commands that mean a light intent; they go through the same pipeline so they
# are counted, styled and recorded like any message.
COMMAND_INTENTS = {"/start": Intent.GREETING, "/help": Intent.HELP}


class DepthClassifier(Protocol):
    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...


def light_intents(classifier: DepthClassifier) -> frozenset[str]:
    """The intents the classifier's rules mark light (none if it does not say)."""
    intents = getattr(classifier, "intents", {})
    return frozenset(name for name, spec in intents.items() if getattr(spec, "mode", "") == "light")


def _cleaned(incoming: Incoming) -> Incoming:
    """The message and the name as they may be stored (no NUL, no control
    characters); the bot cleans updates already, other callers may not."""
    text = clean_input(incoming.text)
    name = clean_input(incoming.first_name) if incoming.first_name else incoming.first_name
    if text == incoming.text and name == incoming.first_name:
        return incoming
    return replace(incoming, text=text, first_name=name or None)


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    force_deep: bool = False


class Pipeline:
    def __init__(
        self,
        *,
        config: PipelineConfig,
        catalog: Catalog,
        classifier: DepthClassifier,
        profiles: ProfileLoader,
        interactions: InteractionRecorder,
        editor: ProfileEditor,
        responder: LightResponder,
        deep: DeepPath,
        journal: Journal,
        peers: HandoffDesk | None = None,
        evals: EvalRules | None = None,
        learning: LearningDesk | None = None,
        advisor: Advisor | None = None,
        clock: Clock = utcnow,
        rules_refresh: Callable[[], Awaitable[None]] | None = None,
        languages: LanguageRules | None = None,
        recall: Recall | None = None,
        exports: JournalExport | None = None,
    ) -> None:
        self.config = config
        self.catalog = catalog
        self.classifier = classifier
        self._profiles = profiles
        self._interactions = interactions
        self._editor = editor
        self.responder = responder
        self.deep = deep
        self.journal = journal
        #: Peer agents (docs/peers.md): None when the bot runs without them.
        self.peers = peers
        #: Checks on every reply (docs/learning.md); None: none are run.
        self._evals = evals
        self._learning = learning
        #: Agronomy questions (docs/knowledge.md): None answers them on the deep path.
        self.advisor = advisor
        self._clock = clock
        #: Picks up an approved routing-rules overlay (pipeline/learning/overlay.py);
        #: cheap: it reads the database at most every 30 s.
        self._rules_refresh = rules_refresh
        self._light_intents = light_intents(classifier)
        #: When the reply language switches (rules/language.toml); None: each message's
        #: own script decides, as before the rules existed.
        self._languages = languages
        #: Shortcuts and conversation memory (pipeline/recall/); None: neither.
        self.recall = recall
        #: The journal list's report button (pipeline/farm/journal/export.py).
        self.exports = exports

    def _language(
        self, incoming: Incoming, profile: UserProfile, *, known: bool, now: datetime
    ) -> LanguageChoice:
        return reply_language(incoming, profile, known=known, now=now, rules=self._languages)

    async def _action_language(self, incoming: Incoming) -> Language:
        """A button's reply speaks the conversation's language, as a message would."""
        loaded = await self._profiles.load(incoming.user_id)
        return self._language(incoming, loaded.profile, known=loaded.known, now=self._clock()).reply

    async def handle_message(self, incoming: Incoming, *, fresh: bool = False) -> Reply:
        """Never raises: a failure anywhere still gives the user a polite reply.
        ``fresh``: no shortcut (the refresh button under a remembered answer)."""
        started = time.perf_counter()
        incoming = _cleaned(incoming)
        lang = message_language(incoming)
        if not incoming.text and not incoming.photo:
            # Only spaces or control characters: nothing to classify, nothing to count.
            # (A photo without a caption is answered by _photo: describe it in words.)
            return Reply(self.catalog.text(lang, "faults.empty"), intent=Intent.CLARIFY)
        if not gate.pre_check(incoming.trace_id):
            return Reply(self.catalog.text(lang, "errors.recursion"), intent=Intent.REFUSED)
        try:
            return await self._handle(incoming, started, fresh)
        except Exception:
            logger.exception("handle_message failed trace=%s", incoming.trace_id)
            return Reply(self.catalog.text(lang, "errors.generic", code=incoming.trace_id[:8]))
        finally:
            gate.release(incoming.trace_id)

    async def _handle(self, incoming: Incoming, started: float, fresh: bool = False) -> Reply:
        if incoming.photo:
            return await self._photo(incoming, started)
        now = self._clock()
        loaded = await self._profiles.load(incoming.user_id)
        profile = loaded.profile
        if profile.name is None and incoming.first_name:
            profile = profile.model_copy(update={"name": incoming.first_name})
        spoken = self._language(incoming, profile, known=loaded.known, now=now)
        lang = spoken.reply
        if self._learning is not None:
            offer = await self._learning.before(incoming, lang)
            if offer is not None:
                return offer
        # A question for a peer agent (docs/peers.md): Stepan answers its own part, if
        # there is one, and offers to pass on the rest; nothing leaves without a yes.
        route = self._peer_route(incoming)
        work = incoming
        if route is not None and route.own_text is not None:
            work = replace(incoming, text=route.own_text)
        if route is not None and route.own_text is None:
            decision = DepthDecision("light", Intent.OFFTOPIC, (), 1.0, f"peer:{route.peer.id}")
        else:
            if self._rules_refresh is not None:
                await self._rules_refresh()
            decision = self._classify(work, loaded, now)
            if self.advisor is not None and wants_advice(decision):
                decision = as_advice(decision)
            if self.recall is not None:
                decision = self.recall.route(work.text, decision)
        crew = (
            gate.select_crew(decision, has_iot=loaded.farm.has_iot)
            if decision.mode == "deep"
            else ()
        )
        answered_deep = forgets = False
        if route is not None and route.own_text is None:
            reply = Reply("")  # the offer below is the whole answer
        # A light intent forced deep (AGX_FORCE_DEEP, --deep, an alert, pending terms) is
        # still recorded as deep, but "привіт" is answered as what it is: no farm work.
        elif decision.mode == "light" or decision.intent in self._light_intents:
            text = await self.responder.answer(
                LightRequest(
                    decision=decision,
                    profile=profile,
                    farm=loaded.farm,
                    lang=lang,
                    is_operator=incoming.is_operator,
                    first_contact=not loaded.known,
                    text=work.text,
                )
            )
            reply = Reply(text)
        elif decision.intent == Intent.ADVICE and self.advisor is not None:
            reply = await self.advisor.answer(
                AdviceRequest(
                    incoming.user_id, work.text, lang, profile, loaded.farm, now, incoming.photo_id
                )
            )
        else:
            request = DeepRequest(work, decision, crew, profile, loaded.farm, lang, now)
            if self.recall is None:
                answered_deep, reply = True, await self._deep(request)
            else:
                answer = await self.recall.answer(request, self._deep, fresh=fresh)
                decision, crew, reply, answered_deep = answer
                forgets = answered_deep and self.recall.shortcuts.forgets(reply)
        text = reflection.reflect(reply.text, profile, incoming.trace_id) if reply.text else ""
        evals = self._evaluate(text, decision, lang, profile.preferred_style, incoming.trace_id)
        await self._interactions.record(
            InteractionRecord(
                user_id=incoming.user_id,
                chat_id=incoming.chat_id,
                trace_id=incoming.trace_id,
                text=incoming.text,
                decision=decision,
                crew=crew,
                latency_ms=(time.perf_counter() - started) * 1000,
                at=now,
                name=profile.name,
                language=lang,
                update_id=incoming.update_id,
                evals=evals,
                written_in=spoken.written_in,
                lasting_language=spoken.lasting,
                operator=incoming.is_operator,
                forget_answers=forgets,
            ),
        )
        buttons = reply.buttons
        if route is not None and self.peers is not None and buttons:
            # Stepan's own part is a card (a journal entry to confirm): its buttons
            # stay, and the peer is only named.
            text = f"{text}\n\n{self.peers.pointer(route.peer, lang)}"
        elif route is not None and self.peers is not None:
            offered = await self.peers.offer(user_id=incoming.user_id, route=route, lang=lang)
            text = f"{text}\n\n{offered.text}" if text else offered.text
            buttons = offered.buttons
        elif decision.intent == Intent.OFFTOPIC and self.peers is not None:
            hint = self.peers.coordinator_hint(lang)
            text = f"{text}\n\n{hint}" if hint else text
        elif not loaded.known and decision.intent == Intent.GREETING:
            # First contact: offer onboarding so Stepan knows the farm from day one.
            text = f"{text}\n\n{self.catalog.text(lang, 'onboarding.offer')}"
            buttons = self.onboarding_offer(lang)
        if self._learning is not None and text:
            if answered_deep and not buttons and route is None:
                # Under deep answers only: not under acknowledgements or cards.
                buttons = (*buttons, self._learning.feedback_row(lang, incoming.trace_id))
            if incoming.is_operator:
                buttons = (*buttons, self._learning.misrouted_row(lang, incoming.trace_id))
        if incoming.is_operator and evals is not None and evals.failed:
            # Operators only: a farmer never sees the checks (docs/learning.md).
            text = f"{text}\n\n{evals.footnote(lang)}"
        footer = operator_footer(self.catalog, lang, incoming, decision, crew, text)
        return Reply(
            f"{text}\n\n{footer}" if footer else text,
            buttons,
            footer=footer,
            document=reply.document,
            photo=reply.photo,
            mode=decision.mode,
            intent=decision.intent,
            crew=crew,
        )

    def _evaluate(
        self, text: str, decision: DepthDecision, lang: Language, style: str, trace_id: str
    ) -> EvalResult | None:
        if self._evals is None or not text:
            return None
        try:
            return self._evals.check(text, EvalContext(decision.mode, decision.intent, lang, style))
        except Exception:
            logger.exception("eval rules failed trace=%s", trace_id)
            return None

    async def _photo(self, incoming: Incoming, started: float) -> Reply:
        """A picture: the caption answered, the agronomist offered (pictures.py)."""

        async def answer_caption() -> Reply:
            return await self._handle(replace(incoming, photo=False), started)

        async def offer(question: str) -> tuple[tuple[Button, ...], ...]:
            if self.advisor is None:
                return ()
            loaded = await self._profiles.load(incoming.user_id)
            return await self.advisor.offer(
                AdviceRequest(incoming.user_id, question, lang, loaded.profile, loaded.farm,
                              self._clock(), incoming.photo_id)
            )  # fmt: skip

        lang = message_language(incoming)
        return await picture_reply(incoming.text, lang, self.catalog, answer_caption, offer)

    def _peer_route(self, incoming: Incoming) -> Route | None:
        if self.peers is None or not incoming.text or incoming.text.startswith("/"):
            return None
        return self.peers.route(incoming.text)

    async def _deep(self, request: DeepRequest) -> Reply:
        try:
            return await self.deep.answer(request)
        except Exception:
            logger.exception("deep path failed trace=%s", request.incoming.trace_id)
            code = request.incoming.trace_id[:8]
            return Reply(self.catalog.text(request.lang, "errors.generic", code=code))

    async def handle_action(self, action: Action, incoming: Incoming) -> Reply:
        """A pressed button. It comes from a client, so it is checked again here."""
        lang = message_language(incoming)
        try:
            lang = await self._action_language(incoming)
            match action:
                case OnboardingAction(choice=OnboardingChoice.LATER):
                    return Reply(self.catalog.text(lang, "onboarding.later_reply"))
                case JournalAction():
                    decision = await self.journal.decide(
                        user_id=incoming.user_id, action=action, lang=lang, now=self._clock()
                    )
                    return decision.reply
                case HandoffAction() if self.peers is not None:
                    loaded = await self._profiles.load(incoming.user_id)
                    names = [n for n in (loaded.profile.name, incoming.first_name) if n]
                    return await self.peers.decide(
                        action,
                        user_id=incoming.user_id,
                        lang=lang,
                        known_names=names,
                        farm=loaded.farm,
                    )
                case FeedbackAction() | FeedbackReasonAction() | CorrectionAction():
                    answer = None
                    if self._learning is not None:
                        answer = await self._learning.on_action(action, incoming, lang)
                    if answer is not None:
                        return answer
                case RefreshAction(trace_id=trace) if self.recall is not None:
                    asked = await self.recall.shortcuts.original(incoming.user_id, trace)
                    if asked:
                        return await self.handle_message(replace(incoming, text=asked), fresh=True)
                    return Reply(self.catalog.text(lang, "recall.refresh_gone"))
                case JournalReportAction() if self.exports is not None:
                    loaded = await self._profiles.load(incoming.user_id)
                    voice = voice_of(loaded.profile.expertise_level, operator=incoming.is_operator)
                    report = await self.exports.reply(
                        action, user_id=incoming.user_id, lang=lang, voice=voice
                    )
                    if report is not None:
                        return report
                case ExampleAction(example=example) if example in HELP_EXAMPLES:
                    text = self.catalog.text(lang, f"help.try.{example}")
                    return await self.handle_message(replace(incoming, text=text))
                case StyleAction(style=style) if style in STYLES:
                    if await self._editor.set_style(incoming.user_id, style):
                        adverb = self.catalog.text(lang, f"actions.adverb.{style}")
                        return Reply(self.catalog.text(lang, "actions.style_set", style=adverb))
        except StoreUnavailable:
            # A failure is said to be one, never "this button has expired".
            return Reply(self.catalog.text(lang, "faults.database"))
        except Exception:
            logger.exception("handle_action failed trace=%s", incoming.trace_id)
        # Onboarding's own buttons outside onboarding, an unknown user, a forged value.
        return Reply(self.catalog.text(lang, "actions.expired"))

    def onboarding_offer(self, lang: Language) -> tuple[tuple[Button, ...], ...]:
        return (
            (
                Button(
                    self.catalog.text(lang, "onboarding.start"),
                    OnboardingAction(OnboardingChoice.START),
                ),
                Button(
                    self.catalog.text(lang, "onboarding.later"),
                    OnboardingAction(OnboardingChoice.LATER),
                ),
            ),
        )

    def _classify(self, incoming: Incoming, loaded: Loaded, now: datetime) -> DepthDecision:
        ctx = classifier_context(
            loaded.profile,
            loaded.farm,
            operator=incoming.is_operator,
            force_deep=self.config.force_deep,
            now=now,
        )
        words = incoming.text.split(maxsplit=1)
        command = words[0].split("@", 1)[0] if words else ""
        if command in COMMAND_INTENTS:
            return DepthDecision("light", COMMAND_INTENTS[command], (), 1.0, f"command:{command}")
        try:
            return self.classifier.classify(incoming.text, ctx)
        except Exception:
            logger.exception("classifier raised trace=%s", incoming.trace_id)
            return DepthDecision.fail_safe()

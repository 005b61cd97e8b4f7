"""Builds everything with a lifetime: engine, HTTP client, pipeline, bot, dispatcher,
scheduler. Nothing here is a module global; the caller owns what it builds.
The composition root: one ``Database`` (db/uow.py) is built here and handed to every
service that opens transactions; each memory service goes only where it is used; handlers
get the services they declare from the dispatcher's workflow data, by name (see
``bot.wiring.dispatcher.build_dispatcher``), never the whole pipeline as a service locator."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import Settings
from bot.delivery.deferred import DeferredSends
from bot.delivery.retry import RetryMiddleware
from bot.user_ids import telegram_id
from bot.wiring.memory import build_memory_layer
from bot.wiring.peers import handoff_desk, peer_server
from bot.wiring.sources import listener, locator, weather_source
from db.engine import DbTimeouts, create_engine
from db.file_watch import SqliteFileWatch
from db.schema import SchemaCheck
from db.uow import Database
from pipeline.actions import AgronomistAction, OnboardingAction, RegionAction
from pipeline.admin.buttons import AdminServices, operator_buttons
from pipeline.admin.card_replies import AdminCards
from pipeline.admin.editing import FarmEdits, ProfileEdits
from pipeline.admin.platform import LlmHealth, PlatformStatus
from pipeline.agronomy import Advisor
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.agronomy.grounded import GroundedWriter
from pipeline.agronomy.region import FarmRegions
from pipeline.buttons import ButtonUse
from pipeline.buttons.agronomist import AgronomistButton
from pipeline.buttons.me import MeCard, me_buttons
from pipeline.buttons.onboarding import OnboardingButton
from pipeline.buttons.uses import RegionButton
from pipeline.classifier.model import PACKAGED_MODEL
from pipeline.clock import Clock, utcnow
from pipeline.crew.llm import LlmSettings
from pipeline.crew.wiring import build_brains
from pipeline.farm.journal.export import JournalExport
from pipeline.farm.journal.service import Journal
from pipeline.farm.naming import NameBook
from pipeline.farm.sensors.store import SensorStore
from pipeline.farm.terms import TermReview
from pipeline.handle import Parts, Pipeline
from pipeline.knowledge import Composer as KnowledgeComposer
from pipeline.language.catalog import Catalog
from pipeline.learning.corrections import Corrections
from pipeline.learning.desk import LearningDesk
from pipeline.learning.feedback import FeedbackDesk, Learnings
from pipeline.learning.nightly import NightlyJob
from pipeline.learning.overlay import LiveClassifier, RuleOverlays
from pipeline.learning.proposals import load_examples
from pipeline.learning.stats_report import QualityReport
from pipeline.memory import Memory, build_memory
from pipeline.onboarding.flow import OnboardingFlow
from pipeline.onboarding.reading import OnboardingReader
from pipeline.peers.link import NatsLink
from pipeline.peers.server import PeerServer
from pipeline.privacy import Sanitizer
from pipeline.recall.wiring import build_recall
from pipeline.rulebook import Rulebook
from pipeline.speech import Listener
from pipeline.weather.answers import WeatherDesk
from pipeline.weather.places import FarmPlaces
from pipeline.weather.sent import SentWarnings
from pipeline.weather.service import Forecasts

#: Seed 3.2: the memory-service gets 2 s, then Stepan goes on without it.
MEMORY_SERVICE_TIMEOUT_S = 2.0


@dataclass(slots=True)
class Core:
    """What the bot, the console chat and the tests share."""

    settings: Settings
    engine: AsyncEngine
    db: Database
    http: httpx.AsyncClient
    memory: Memory
    pipeline: Pipeline
    onboarding: OnboardingFlow
    terms: TermReview
    sensors: SensorStore
    llm_health: LlmHealth
    platform: PlatformStatus
    #: The learnings table and the LEARNINGS block of LLM prompts (docs/learning.md).
    learnings: Learnings
    #: /rules: the routing-rules overlay's versions, rollback, approvals.
    overlays: RuleOverlays
    #: The nightly quality job (sends through the bot once one runs).
    nightly: NightlyJob
    #: /stats: the section-15 figures and the daily chart.
    quality: QualityReport
    #: Names for ids in the cards people read (/me, /profile, /farm).
    names: NameBook
    #: The farm's oblast (onboarding, /farm update region=...; docs/knowledge.md).
    regions: FarmRegions
    #: The forecast cache and its source (docs/weather.md); the hourly job refreshes it.
    forecasts: Forecasts
    #: NATS for the peer agents; None without STEPAN_NATS_URL (docs/peers.md).
    peer_link: NatsLink | None = None
    #: Stepan answering other agents' contracts (only with a link).
    peer_server: PeerServer | None = None
    #: The operators' cards, edits and decisions (set by build_core).
    admin: AdminServices | None = None
    #: Voice messages heard (docs/voice.md); off without a transcription endpoint.
    listener: Listener = field(default_factory=lambda: Listener(None))
    #: The SQLite file deleted or replaced under the bot (db/file_watch.py); None on
    #: PostgreSQL.
    file_watch: SqliteFileWatch | None = None

    async def start_peers(self, *, serve: bool = True) -> None:
        """Connect to NATS in the background and, if ``serve``, answer on
        agent.agromatrix.invoke; returns at once even if NATS is down."""
        if self.peer_link is None:
            return
        if serve and self.peer_server is not None:
            await self.peer_server.start()
        await self.peer_link.start()

    async def close(self) -> None:
        if self.peer_link is not None:
            await self.peer_link.close()
        await self.memory.interactions.drain()
        await self.http.aclose()
        await self.engine.dispose()


def build_pipeline(
    settings: Settings,
    db: Database,
    catalog: Catalog | None = None,
    memory: Memory | None = None,
    llm_health: LlmHealth | None = None,
    rules: Rulebook | None = None,
    peer_link: NatsLink | None = None,
    learnings: Learnings | None = None,
    classifier: LiveClassifier | None = None,
    clock: Clock = utcnow,
    llm: Any | None = None,
    onboarding: OnboardingFlow | None = None,
    names: NameBook | None = None,
    regions: FarmRegions | None = None,
    forecasts: Forecasts | None = None,
) -> Pipeline:
    """``llm``: a ready CrewAI ``BaseLLM`` in place of the settings' endpoint (a
    benchmark's scripted one, bench/scale.py); None: the settings decide. So do
    ``onboarding`` and ``names`` (the /me card's): None, the pipeline's own."""
    catalog = catalog or Catalog.load()
    # Every rules file is read here, once, and handed to who uses it.
    rules = rules or Rulebook.load(model=settings.stepan.intent_model or PACKAGED_MODEL)
    memory = memory or build_memory(db, learning=rules.profiles)
    learnings = learnings or Learnings(db, rules.learning)
    # The packaged routing rules plus the overlay operators approved (docs/learning.md).
    classifier = classifier or LiveClassifier(rules.classifier, rules.grammar, db)
    journal = _journal(catalog, db, memory, rules)
    llm = llm if llm is not None else _llm_settings(settings)
    # Without an LLM: templates and the offline composer. With one: one short LLM call
    # for light replies and the CrewAI crew for deep ones (CrewAI imported lazily).
    brains = build_brains(
        catalog,
        journal,
        db,
        memory.sync,
        rules=rules,
        llm=llm,
        health=llm_health or LlmHealth(configured=llm is not None),
        integrations=settings.integrations,
        learnings=lambda: learnings.block,
    )
    desk = handoff_desk(rules, catalog, db, peer_link)
    recall = build_recall(rules, catalog, db, memory, brains.client, clock)
    advisor = _advisor(settings, db, catalog, rules, brains.client)
    regions = regions or FarmRegions(rules.knowledge, memory.editor)
    onboarding = onboarding or build_onboarding(catalog, db, memory, rules, classifier, regions)
    # Without one given: the cache alone (no source), as a test's pipeline has it.
    forecasts = forecasts or Forecasts(db, None, locator(rules), clock=clock)
    places = FarmPlaces(db, forecasts.locator, memory.editor)
    card = MeCard(memory.profiles, names or _names(db, rules), recall.conversations)
    # Light LLM replies read the conversation summaries too (never the templates).
    brains.responder.recall = recall.conversations.for_prompt
    weather = WeatherDesk(forecasts, places, rules.weather, rules.knowledge.data.regions)
    # A recorded spraying keeps the weather at its time, from the cache (issue 27).
    journal.use_weather(weather.at_work)
    parts = Parts(
        force_deep=settings.agx.force_deep,
        catalog=catalog,
        classifier=classifier,
        rules_refresh=classifier.refresh,
        languages=rules.language,
        profiles=memory.profiles,
        interactions=memory.interactions,
        editor=memory.editor,
        responder=brains.responder,
        deep=brains.deep,
        journal=journal,
        peers=desk,
        evals=rules.evals,
        learning=_learning_desk(db, catalog, rules, learnings),
        advisor=advisor,
        clock=clock,
        recall=recall,
        exports=JournalExport(catalog, db, rules.vocabulary),
        places=places,
        weather=weather,
        buttons=_farmer_buttons(settings, memory, onboarding, card, advisor.desk, regions),
    )
    return Pipeline(parts)


def _journal(catalog: Catalog, db: Database, memory: Memory, rules: Rulebook) -> Journal:
    return Journal(
        catalog,
        db,
        memory.editor,
        parser=rules.parser(),
        vocabulary=rules.vocabulary,
        edit_words=rules.journal_edits,
        learner=memory.learner,
    )


def build_onboarding(
    catalog: Catalog,
    db: Database,
    memory: Memory,
    rules: Rulebook,
    classifier: LiveClassifier,
    regions: FarmRegions | None = None,
) -> OnboardingFlow:
    return OnboardingFlow(
        catalog,
        db,
        memory.editor,
        rules.vocabulary.shared(),
        rules.units,
        regions or FarmRegions(rules.knowledge, memory.editor),
        OnboardingReader(rules.onboarding, classifier),
    )


def _names(db: Database, rules: Rulebook) -> NameBook:
    """Names for ids in the cards people read (/me, /profile, /farm)."""
    return NameBook(db, rules.vocabulary, rules.knowledge.data.regions)


def _farmer_buttons(
    settings: Settings,
    memory: Memory,
    onboarding: OnboardingFlow,
    card: MeCard,
    agronomist: AgronomistDesk | None,
    regions: FarmRegions,
) -> dict[type, ButtonUse]:
    """The farmers' buttons whose use cases need more than the chain's parts:
    onboarding's, the /me card's and /forget's, the agronomist desk's (its card to
    every operator of AGX_OPERATOR_IDS)."""
    uses: dict[type, ButtonUse] = {
        OnboardingAction: OnboardingButton(onboarding),
        **me_buttons(card, memory.editor, telegram_id),
        RegionAction: RegionButton(regions),
    }
    if agronomist is not None:
        uses[AgronomistAction] = AgronomistButton(agronomist, settings.agx.operator_ids)
    return uses


def _learning_desk(
    db: Database, catalog: Catalog, rules: Rulebook, learnings: Learnings
) -> LearningDesk:
    """Feedback, corrections and what they teach (docs/learning.md)."""
    return LearningDesk(
        catalog,
        rules.classifier,
        learnings,
        FeedbackDesk(db, learnings),
        Corrections(db, learnings, rules.classifier.intents),
    )


def _llm_settings(settings: Settings) -> LlmSettings | None:
    """The OpenAI-compatible endpoint of the settings, if one is configured."""
    stepan = settings.stepan
    if not (settings.llm_configured and stepan.llm_model):
        return None
    base_url = str(stepan.llm_base_url) if stepan.llm_base_url else None
    return LlmSettings(model=stepan.llm_model, base_url=base_url, api_key=stepan.llm_api_key)


def _advisor(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook, client: Any | None
) -> Advisor:
    """Agronomy questions (docs/knowledge.md): with an LLM, the retrieved cards are its
    only sources; the agronomist desk takes what the cards do not answer."""
    return Advisor(
        rules.knowledge,
        KnowledgeComposer(rules.knowledge, catalog, rules.vocabulary),
        db,
        writer=GroundedWriter(client, rules.prompts, catalog, rules.knowledge.crop_names)
        if client is not None
        else None,
        desk=AgronomistDesk(
            catalog=catalog,
            database=db,
            sanitizer=Sanitizer(rules.privacy),
            expiry=timedelta(hours=settings.stepan.agronomist_expiry_hours),
        ),
    )


def build_core(
    settings: Settings,
    rules: Rulebook | None = None,
    catalog: Catalog | None = None,
    llm: Any | None = None,
) -> Core:
    rules = rules or Rulebook.load(model=settings.stepan.intent_model or PACKAGED_MODEL)
    # Lock and statement timeouts: a stuck database answers within seconds. SQLite's
    # WAL is checkpointed by a job (db/checkpoint.py), never inside a commit.
    url = settings.stepan.database_url
    engine = create_engine(url, timeouts=DbTimeouts(), checkpoint_by_job=True)
    db = Database.of(engine)
    file_watch = SqliteFileWatch.for_url(url, db.health)
    http = httpx.AsyncClient(timeout=MEMORY_SERVICE_TIMEOUT_S)
    memory = build_memory_layer(settings, db, http, rules.profiles)
    llm_health = LlmHealth(configured=settings.llm_configured or llm is not None)
    learnings = Learnings(db, rules.learning)
    classifier = LiveClassifier(rules.classifier, rules.grammar, db)
    regions = FarmRegions(rules.knowledge, memory.editor)
    catalog = catalog or Catalog.load()
    onboarding = build_onboarding(catalog, db, memory, rules, classifier, regions)
    names = _names(db, rules)
    forecasts = Forecasts(db, weather_source(settings, http), locator(rules))
    nats_url = settings.stepan.nats_url
    link = NatsLink(nats_url.get_secret_value()) if nats_url is not None else None
    pipeline = build_pipeline(
        settings,
        db,
        catalog,
        memory=memory,
        llm_health=llm_health,
        rules=rules,
        peer_link=link,
        learnings=learnings,
        classifier=classifier,
        llm=llm,
        onboarding=onboarding,
        names=names,
        regions=regions,
        forecasts=forecasts,
    )
    server = peer_server(link, pipeline, rules, db) if link is not None else None
    core = Core(
        settings=settings,
        engine=engine,
        db=db,
        http=http,
        memory=memory,
        pipeline=pipeline,
        onboarding=onboarding,
        regions=regions,
        forecasts=forecasts,
        terms=TermReview(db, memory.editor, rules.vocabulary.rules),
        sensors=SensorStore(db, rules.sensors, learner=memory.learner),
        llm_health=llm_health,
        platform=PlatformStatus(
            db=db,
            sync=memory.sync,
            llm=llm_health,
            http=http,
            integrations=settings.integrations,
            schema=SchemaCheck.load(),
        ),
        learnings=learnings,
        overlays=RuleOverlays(db, classifier),
        nightly=_nightly(settings, db, rules, pipeline.catalog),
        quality=QualityReport(
            db,
            rules.learning.targets,
            breaker=lambda: memory.sync.breaker_state,
            timezone=settings.stepan.farm_timezone,
        ),
        names=names,
        peer_link=link,
        peer_server=server,
        listener=listener(settings, http),
        file_watch=file_watch,
    )
    return _with_admin(core)


def _with_admin(core: Core) -> Core:
    """The operators' services: their commands get them (bot/wiring/dispatcher.py
    operator_services), their buttons join the one registry (``Parts.buttons``)."""
    memory = core.memory
    core.admin = AdminServices(
        cards=AdminCards(memory.profiles, core.names, SentWarnings(core.db)),
        profile_edits=ProfileEdits(memory.editor),
        farm_edits=FarmEdits(memory.profiles, memory.editor, memory.learner, core.regions),
        terms=core.terms,
        overlays=core.overlays,
        learnings=core.learnings,
        journal=core.pipeline.journal.edits,
    )
    buttons = core.pipeline.parts.buttons
    core.pipeline.swap(buttons={**buttons, **operator_buttons(core.admin)})
    return core


def _nightly(settings: Settings, db: Database, rules: Rulebook, catalog: Catalog) -> NightlyJob:
    return NightlyJob(
        db,
        rules.learning.nightly,
        rules.classifier.rules,
        rules.grammar,
        load_examples(),
        catalog=catalog,
        operators=settings.agx.operator_ids,
    )


def build_bot(settings: Settings, deferred: DeferredSends | None = None) -> Bot:
    token = settings.stepan.bot_token
    if token is None:
        raise ValueError("STEPAN_BOT_TOKEN is not set")
    session = None
    if settings.stepan.telegram_api_url is not None:
        base = str(settings.stepan.telegram_api_url).rstrip("/")
        session = AiohttpSession(api=TelegramAPIServer.from_base(base))
    # parse_mode stays None: plain text (model output must never fail to parse as HTML).
    bot = Bot(
        token.get_secret_value(), session=session, default=DefaultBotProperties(parse_mode=None)
    )
    # Every call waits out flood control (kept in the database meanwhile, with
    # ``deferred``) and retries 5xx / dropped connections.
    bot.session.middleware(RetryMiddleware(deferred=deferred))
    return bot

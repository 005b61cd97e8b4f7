"""The memory-service world of the protocol tests (test_memory_protocol.py,
test_memory_summaries.py, test_conversation_sync.py): the fake service over real HTTP,
a manual clock for the breaker and the cache, memory services talking to the fake,
the pipeline over them, and the outbox rows left to send."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import httpx
import pytest
from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.models import OutboxRow, UserProfileRow
from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory, build_memory
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.service.auth import Credentials
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService, ManualClock

Factory = async_sessionmaker[AsyncSession]
COOLDOWN = 30.0
TEAM = "team-agro"
MakeMemory = Callable[..., Memory]


@pytest.fixture
async def service() -> AsyncIterator[FakeMemoryService]:
    async with FakeMemoryService(static_tokens={"static-token-1": "stepan:tg:s"}) as fake:
        yield fake


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def make_memory(
    service: FakeMemoryService, clock: ManualClock, http: httpx.AsyncClient, db: Database
) -> MakeMemory:
    def make(
        *,
        secret: str | None = JWT_SECRET,
        token: str | None = None,
        timeout_s: float = 5.0,
        team: str | None = TEAM,
        path: str = "",
        ahead_s: float = 0.0,
    ) -> Memory:
        """``path``: appended to the service's URL (a wrong base path); ``ahead_s``:
        how far Stepan's clock runs ahead of the service's (the token's times)."""
        credentials = Credentials(
            jwt_secret=SecretStr(secret) if secret else None,
            static_token=SecretStr(token) if token else None,
            clock=lambda: time.time() + ahead_s,
        )
        client = MemoryServiceClient(
            service.base_url + path,
            http,
            credentials=credentials,
            team_id=team,
            breaker=CircuitBreaker(failure_threshold=3, cooldown_s=COOLDOWN, clock=clock),
            # Generous: the machine may be loaded; only a hanging test waits for it.
            timeout_s=timeout_s,
            attempts=2,
            backoff_s=0,
        )
        return build_memory(db, client, cache=ProfileCache(clock=clock))

    return make


@pytest.fixture
def memory(make_memory: MakeMemory) -> Memory:
    return make_memory()


@pytest.fixture
def make_pipeline(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook
) -> Callable[[Memory], Pipeline]:
    return lambda memory: build_pipeline(settings, db, catalog, memory=memory, rules=rules)


async def send(pipeline: Pipeline, text: str, user: str = "tg:1") -> None:
    trace = uuid.uuid4().hex[:16]
    await pipeline.handle_message(
        Incoming(user_id=user, chat_id=1, text=text, trace_id=trace, first_name="Оксана")
    )


async def rows(factory: Factory, user: str | None = None) -> list[OutboxRow]:
    async with factory() as session:
        query = select(OutboxRow).where(OutboxRow.sent_at.is_(None)).order_by(OutboxRow.id)
        if user is not None:
            query = query.where(OutboxRow.user_id == user)
        return list((await session.execute(query)).scalars())


async def sql_user(factory: Factory, user: str) -> UserProfileRow | None:
    async with factory() as session:
        return await session.get(UserProfileRow, user)


def rich_profile(service: FakeMemoryService, user: str) -> None:
    """What the service holds for a farmer SQL has lost: name, level, 11 interactions,
    a farm with a name, thresholds and crops."""
    profile = UserProfile.default(user).model_copy(
        update={
            "name": "Марія Іванівна",
            "expertise_level": "expert",
            "interaction_count": 11,
            "known_intents": ["greeting", "recording"],
            "preferred_style": "brief",
            "updated_at": datetime(2026, 1, 5, tzinfo=UTC),
        }
    )
    farm = FarmProfile(
        farm_id="farm:remote",
        user_id=user,
        farm_name="Степове",
        crop_ids=["wheat", "sunflower"],
        alert_thresholds={"soil_moisture_min": 27.5, "temperature_min": -3, "temperature_max": 35},
    )
    service.put_fact(f"stepan:{user}", user_fact_key(user), profile.to_seed_json())
    service.put_fact(f"stepan:{user}", farm_fact_key(user), farm.to_seed_json())

"""How many deep requests the section-9 shortcuts save on a realistic day of messages
(issue 11 point 8; used by ``bench/deep_path.py``).

The mix is generated from a fixed seed: ``farmers`` farmers, each with ``sessions``
conversations spread over a working day (06:00-20:00 on the farm's clock), each
conversation 2-6 messages 1-4 minutes apart. A message is, in this order of chance:

* the previous farming question asked again in other words (``p_again``): a farmer
  checking whether it changed, or who missed the answer;
* a light one («дякую», «ок», «привіт»; ``p_light``);
* a new farming question: a subject drawn by weight (moisture on one of two fields,
  the week plan, plan vs fact, the season, the services, «який статус» / «що зараз»,
  a recording), each said one of several ways.

The same mix is replayed twice through ``Pipeline.handle_message`` on one seeded
database: once as Stepan runs (shortcuts on) and once with ``fresh=True`` on every
message (what the refresh button does: the same routing, no shortcut). The figure is
the difference in deep-path runs; the shortcut answers are counted by the reason the
interactions record.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from pipeline.handle import Pipeline
from pipeline.types import DeepRequest, Incoming, Reply

#: Subject -> (weight, ways to say it). The weights follow what farmers ask most in
#: the routing corpus: sensors and plans first, then reports and the status.
SUBJECTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "moisture_2": (5, ("яка вологість на полі 2", "а вологість на полі 2?", "вологість поле 2",
                       "покажи вологість на полі 2")),
    "moisture_north": (3, ("яка вологість на Північному", "вологість Північне",
                           "а на Північному яка вологість?")),
    "status": (4, ("який статус", "що зараз?", "що там зараз на полях?", "який зараз стан?")),
    "plan": (3, ("сплануй тиждень", "план на тиждень", "що плануємо на цей тиждень?")),
    "plan_fact": (2, ("план/факт за квітень", "план факт за квітень",
                      "порівняй план і факт за квітень")),
    "season": (1, ("зведення за сезон", "підсумок сезону")),
    "services": (1, ("статус сервісів", "чи працюють сервіси?")),
    "record": (2, ("запиши полив 20 мм на Північному вчора",
                   "внесли 100 кг селітри на полі 2 сьогодні")),
}  # fmt: skip
LIGHT = ("дякую", "ок", "привіт", "добре", "👍")


@dataclass(frozen=True, slots=True)
class Message:
    user: str
    at: datetime
    text: str


def generate(
    users: tuple[str, ...],
    day: datetime,
    *,
    sessions: int = 4,
    p_again: float = 0.25,
    p_light: float = 0.3,
    seed: int = 11,
) -> list[Message]:
    """The day's messages of every user, in time order (see the module's doc)."""
    rng = random.Random(seed)
    names = list(SUBJECTS)
    weights = [SUBJECTS[name][0] for name in names]
    messages: list[Message] = []
    for user in users:
        starts = sorted(rng.uniform(0, 14 * 60) for _ in range(sessions))
        for start in starts:
            at = day.replace(hour=3) + timedelta(minutes=start)  # 06:00 in Kyiv
            subject: str | None = None
            for _ in range(rng.randint(2, 6)):
                roll = rng.random()
                if subject is not None and roll < p_again:
                    text = rng.choice(SUBJECTS[subject][1])
                elif roll < p_again + p_light:
                    text = rng.choice(LIGHT)
                else:
                    subject = rng.choices(names, weights)[0]
                    text = rng.choice(SUBJECTS[subject][1])
                messages.append(Message(user, at, text))
                at += timedelta(minutes=rng.uniform(1, 4))
    return sorted(messages, key=lambda m: m.at)


def for_users(mix: list[Message], suffix: str) -> list[Message]:
    """The same day for other users (each replay on farms of its own)."""
    return [replace(m, user=m.user + suffix) for m in mix]


class _Counting:
    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.runs = 0

    async def answer(self, request: DeepRequest) -> Reply:
        self.runs += 1
        return await self.inner.answer(request)  # type: ignore[attr-defined, no-any-return]


async def replay(pipeline: Pipeline, mix: list[Message], *, fresh: bool) -> int:
    """``mix`` through ``pipeline``, each message at its own time; ``fresh``: never a
    shortcut. Returns how many times the deep path ran."""
    counting = _Counting(pipeline.deep)
    parts = pipeline.parts
    try:
        for message in mix:
            pipeline.swap(deep=counting, clock=lambda at=message.at: at)
            incoming = Incoming(message.user, 1, message.text, uuid.uuid4().hex[:16])
            await pipeline.handle_message(incoming, fresh=fresh)
    finally:
        pipeline.swap(deep=parts.deep, clock=parts.clock)
    return counting.runs

"""Everything only operators may do, behind one IsOperator filter on messages AND
callbacks: a forged callback or a command from anyone else never reaches these
handlers (it goes on to the refusal router)."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram import Router

from bot.filters import IsOperator
from bot.handlers import agronomist
from bot.handlers.operators import farm as operator_farm
from bot.handlers.operators import learning as operator_learning
from bot.handlers.operators import profile as operator_profile
from bot.handlers.operators import rules as operator_rules
from bot.handlers.operators import sensors as operator_sensors
from bot.handlers.operators import stats as operator_stats
from bot.handlers.operators import status as operator_status
from bot.handlers.operators import terms as operator_terms
from bot.middlewares.services import ServicesMiddleware

FEATURES: tuple[Router, ...] = (
    operator_profile.router,  # /profile and its buttons
    operator_farm.router,  # /farm and its buttons
    operator_status.router,  # /status
    operator_terms.router,  # /pending /approve /reject /apply_dict /pending_stats, buttons
    operator_sensors.router,  # /token, CSV readings; other documents go on to non_text
    operator_learning.router,  # /learnings and its delete buttons
    operator_stats.router,  # /stats [period]
    operator_rules.router,  # /rules, /rules rollback
    agronomist.operator_router,  # /questions, /answer N, a reply to a question's card
)


def build_operators_router(
    services: Mapping[str, object], features: tuple[Router, ...] = FEATURES
) -> Router:
    """``services``: what only operators' handlers use (bot/middlewares/services.py)."""
    router = Router(name=__name__)
    router.message.filter(IsOperator())
    router.callback_query.filter(IsOperator())
    router.message.middleware(ServicesMiddleware(services))
    router.callback_query.middleware(ServicesMiddleware(services))
    router.include_routers(*features)
    return router

"""The closed sets of values a row's state, status, outcome or kind column holds.

One ``StrEnum`` per column (or per columns that share one meaning). Each column is a
plain ``String`` of the same length as before, and the database refuses any other
value through a CHECK constraint named ``ck_<table>_<column>`` (the models'
``__table_args__``, migrations ``0023_row_state_checks`` and
``0024_closed_set_checks``). A member equals its
string, so code comparing with ``"pending"`` or writing ``"done"`` keeps working;
a value read back from the database is that plain string (equal to, and hashing
like, its member).

Adding a value: add the member here *and* a migration that recreates the column's
constraint with it (``CHECKED_COLUMNS`` lists every constrained column).
"""

from __future__ import annotations

import enum

from sqlalchemy import CheckConstraint


class PendingTermStatus(enum.StrEnum):
    """``pending_terms.status``: a name Stepan did not know, on its way to an operator
    (pipeline/farm/terms.py)."""

    #: Waiting for an operator; counted in the farm's ``dict_pending_count``.
    PENDING = "pending"
    #: An operator gave it a canonical id; the next apply adds it to the dictionary.
    APPROVED = "approved"
    #: An operator refused it: never added.
    REJECTED = "rejected"
    #: Added to the farm's dictionary, and the operations that waited on it completed.
    APPLIED = "applied"


class DraftStatus(enum.StrEnum):
    """``operation_drafts.status``: an operation card shown until the user decides
    (pipeline/farm/journal/service.py)."""

    #: Shown as a card, not yet confirmed.
    DRAFT = "draft"
    #: Confirmed: its operations are in the journal.
    WRITTEN = "written"
    #: Cancelled (or replaced by an edit): nothing was written.
    CANCELLED = "cancelled"


class OperationStatus(enum.StrEnum):
    """``operations.status``: a journal entry's tense (pipeline/farm/journal/parsing)."""

    #: Dated ahead (or said as a plan): work still to do.
    PLANNED = "planned"
    #: Done on its date.
    DONE = "done"


class RevisionKind(enum.StrEnum):
    """``operation_revisions.kind``: what happened to a journal entry
    (pipeline/farm/journal/edits)."""

    #: Written from a card (✅).
    WRITE = "write"
    #: Values changed (a correction, or an undo of one).
    EDIT = "edit"
    #: Taken out of the journal, kept as deleted (restorable).
    DELETE = "delete"
    #: Put back after a delete.
    RESTORE = "restore"
    #: A planned entry marked done.
    DONE = "done"


class AgronomistQuestionStatus(enum.StrEnum):
    """``agronomist_questions.status``: a question offered to the human agronomist
    (db/repositories/agronomist.py)."""

    #: Offered to the farmer, waiting for their yes or no.
    OFFERED = "offered"
    #: The farmer said yes: sent to the operators, waiting for ``/answer``.
    PENDING = "pending"
    #: The farmer said no: the card is dropped.
    REFUSED = "refused"
    #: An operator answered it.
    ANSWERED = "answered"
    #: Nobody answered within STEPAN_AGRONOMIST_EXPIRY_HOURS (a late answer is still
    #: delivered).
    EXPIRED = "expired"


class ProposalStatus(enum.StrEnum):
    """``rule_proposals.status``: a routing change the nightly job proposed
    (pipeline/learning/nightly.py, pipeline/learning/overlay.py)."""

    #: Waiting for an operator's ✅ / ❌; the nightly job does not propose it again.
    PENDING = "pending"
    #: Approved: its term is in a new overlay version.
    APPROVED = "approved"
    #: Refused by an operator.
    REJECTED = "rejected"


class RuleTermKind(enum.StrEnum):
    """``rule_proposals.kind``: where a proposed term goes in the classifier rules
    (pipeline/learning/overlay.py ``OverlayTerm``)."""

    #: A trigger word: on its own it routes to the intent.
    TRIGGER = "trigger"
    #: A keyword: adds to the intent's score.
    KEYWORD = "keyword"


class InboxStatus(enum.StrEnum):
    """``update_inbox.status``: a Telegram update's place in the inbox
    (bot/transport/inbox.py, db/repositories/inbox.py)."""

    #: Claimed: held by whoever holds its lease; replayed once the lease runs out.
    HANDLING = "handling"
    #: Handled (its ``outcome`` says how); pruned after the retention period.
    DONE = "done"


class InboxOutcome(enum.StrEnum):
    """``update_inbox.outcome``: how a done update ended (NULL while handling)."""

    #: Its handler returned.
    OK = "ok"
    #: Its handler raised.
    ERROR = "error"
    #: Unreadable, or it failed every replay: never tried again.
    POISON = "poison"
    #: Its reply was kept to wait out flood control (bot/delivery/deferred.py).
    DEFERRED = "deferred"


class OutboxState(enum.StrEnum):
    """``memory_outbox.state``: an unsent change for the memory-service
    (db/repositories/outbox.py, pipeline/memory/service/syncing.py)."""

    #: To send (again, after an outage).
    PENDING = "pending"
    #: The service refused Stepan's credentials: kept, retried, shown in /status.
    CONFIG_ERROR = "config_error"
    #: Refused for good (400/405/422): kept with ``last_error`` for an operator.
    DEAD = "dead"


class JobOutcome(enum.StrEnum):
    """``job_runs.last_outcome`` and ``job_slots.outcome``: how a scheduled run ended
    (bot/wiring/scheduler.py); NULL until it has."""

    #: The job returned.
    OK = "ok"
    #: The job raised (``last_detail`` says what).
    ERROR = "error"
    #: Not run: the previous run still held the job's lock.
    SKIPPED = "skipped"


class AlertKind(enum.StrEnum):
    """``alerts.kind``: what an alert episode is about (pipeline/farm/sensors)."""

    #: The reading fell below the farm's minimum.
    BELOW_MIN = "below_min"
    #: The reading rose above the farm's maximum.
    ABOVE_MAX = "above_max"
    #: The probe sent nothing for too long; closed by its next reading.
    SILENT = "silent"


class TermKind(enum.StrEnum):
    """``dictionary_terms.kind`` and ``pending_terms.kind``: what a name names
    (pipeline/farm/words/name_match.py ``Kind``)."""

    FIELD = "field"
    CROP = "crop"
    OPERATION = "operation"
    PRODUCT = "product"


class HandoffDirection(enum.StrEnum):
    """``handoffs.direction`` (db/repositories/handoffs.py)."""

    #: A question Stepan offered to a peer agent.
    OUT = "out"
    #: A contract a peer agent sent Stepan.
    IN = "in"


class PrivacyLevel(enum.StrEnum):
    """``handoffs.privacy_level``: the contract's privacy (pipeline/peers/contract.py
    ``PrivacyLevel``); NULL when no contract was read."""

    PUBLIC = "public"
    TEAM = "team"
    CONFIDENTIAL = "confidential"


class FeedbackVerdict(enum.StrEnum):
    """``feedback.verdict``: 👍 / 👎 / 🛠 under a reply (pipeline/learning/feedback.py)."""

    UP = "up"
    DOWN = "down"
    FIX = "fix"


class FeedbackReason(enum.StrEnum):
    """``feedback.reason``: 👎's follow-up «що не так?»; NULL until it is given."""

    WRONG = "wrong"
    NOT_ASKED = "not_asked"
    TOO_LONG = "too_long"
    LANGUAGE = "language"


class LearningSource(enum.StrEnum):
    """``learnings.source``: what a learned rule came from (pipeline/learning)."""

    #: A 👎 (sharpened by its reason when one is given).
    NEGATIVE = "negative"
    #: A 🛠.
    FIXIT = "fixit"
    #: A reply marked as misrouted (pipeline/learning/corrections.py).
    CORRECTION = "correction"


class CorrectionSource(enum.StrEnum):
    """``corrections.source``: who marked the reply as misrouted."""

    OPERATOR = "operator"
    FARMER = "farmer"


class RouteMode(enum.StrEnum):
    """``interactions.mode``, ``corrections.mode`` and ``corrections.was_mode``: the
    classifier's routing (pipeline/types.py ``Mode``)."""

    LIGHT = "light"
    DEEP = "deep"


class OutboxOperation(enum.StrEnum):
    """``memory_outbox.operation``: what the memory-service is asked to do
    (db/repositories/outbox.py ``Operation``)."""

    UPSERT = "upsert"
    DELETE = "delete"
    SUMMARY_ADD = "summary_add"
    SUMMARY_DELETE = "summary_delete"
    SUMMARY_PURGE = "summary_purge"


class SummarySource(enum.StrEnum):
    """``conversation_summaries.source``: how a conversation was compacted
    (pipeline/recall/compact.py)."""

    #: Summarised by the LLM.
    LLM = "llm"
    #: Its lines picked without the LLM (offline, or the LLM failed).
    EXTRACTIVE = "extractive"


class AnswerSlot(enum.StrEnum):
    """``answer_cache.slot``: which remembered answer (pipeline/recall/shortcuts.py)."""

    #: The last deep answer, for the same question again within minutes.
    REPEAT = "repeat"
    #: The last answer to «який статус», for an hour.
    STATUS = "status"


class WeatherWarningKind(enum.StrEnum):
    """``weather_warnings.kind``: what a warning Stepan wrote first is about
    (pipeline/weather/warnings.py)."""

    #: The air at 2 m at or below 0 °C within the next two days, while it harms crops.
    FROST = "frost"
    #: Heavy rain on the day of a planned spraying.
    RAIN = "rain"
    #: A day whose maximum reaches the heat threshold.
    HEAT = "heat"


#: Every constrained column: (table, column, the enum of its values).
CHECKED_COLUMNS: tuple[tuple[str, str, type[enum.StrEnum]], ...] = (
    ("pending_terms", "status", PendingTermStatus),
    ("operation_drafts", "status", DraftStatus),
    ("operations", "status", OperationStatus),
    ("agronomist_questions", "status", AgronomistQuestionStatus),
    ("rule_proposals", "status", ProposalStatus),
    ("rule_proposals", "kind", RuleTermKind),
    ("update_inbox", "status", InboxStatus),
    ("update_inbox", "outcome", InboxOutcome),
    ("memory_outbox", "state", OutboxState),
    ("job_runs", "last_outcome", JobOutcome),
    ("job_slots", "outcome", JobOutcome),
    ("alerts", "kind", AlertKind),
    # 0024_closed_set_checks
    ("dictionary_terms", "kind", TermKind),
    ("pending_terms", "kind", TermKind),
    ("handoffs", "direction", HandoffDirection),
    ("handoffs", "privacy_level", PrivacyLevel),
    ("feedback", "verdict", FeedbackVerdict),
    ("feedback", "reason", FeedbackReason),
    ("learnings", "source", LearningSource),
    ("corrections", "source", CorrectionSource),
    ("corrections", "was_mode", RouteMode),
    ("corrections", "mode", RouteMode),
    ("interactions", "mode", RouteMode),
    ("memory_outbox", "operation", OutboxOperation),
    ("conversation_summaries", "source", SummarySource),
    ("answer_cache", "slot", AnswerSlot),
    # 0025_journal_revisions
    ("operation_revisions", "kind", RevisionKind),
    # 0027_weather
    ("weather_warnings", "kind", WeatherWarningKind),
)


def allowed_values_sql(column: str, values: type[enum.StrEnum]) -> str:
    """The constraint's condition: ``status IN ('draft', 'written', ...)`` (a NULL
    passes a CHECK, so a nullable column stays nullable)."""
    listed = ", ".join(f"'{member.value}'" for member in values)
    return f"{column} IN ({listed})"


def one_of(column: str, values: type[enum.StrEnum]) -> CheckConstraint:
    """The model's CHECK constraint; the naming convention (db/base.py) makes its name
    ``ck_<table>_<column>``."""
    return CheckConstraint(allowed_values_sql(column, values), name=column)

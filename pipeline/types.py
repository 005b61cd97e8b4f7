"""Plain data passed between the pipeline's steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal

from pipeline.actions import Action
from pipeline.intents import Intent
from pipeline.language.codes import Language as Language
from pipeline.profiles import FarmProfile, UserProfile

Mode = Literal["light", "deep"]

#: `stepan chat` users get Telegram-shaped ids from here up (Telegram's own user ids
#: stay below 2**52): they share the bot's code path but have no Telegram chat.
CONSOLE_USER_IDS_FROM = 10**15

#: Every sub-agent the deep path knows, sorted by name (LABELS.md orders crews so).
CREW_NAMES: tuple[str, ...] = ("iot", "ops", "platform", "spreadsheet", "sustainability")


@dataclass(frozen=True, slots=True)
class DepthDecision:
    """The classifier's verdict (seed section 3.1)."""

    mode: Mode
    intent: Intent
    crew_needed: tuple[str, ...]
    confidence: float
    reason: str
    #: Every intent the text matched, primary first; a mixed request ("запиши полив
    #: і зроби звіт") needs the union of their crews (LABELS.md).
    matched_intents: tuple[Intent, ...] = ()
    #: Nothing was understood: the likeliest readings of the learned fallback, best
    #: first (two or three), offered to the farmer as a question with buttons.
    readings: tuple[Intent, ...] = ()

    @classmethod
    def fail_safe(cls, reason: str = "classifier_error") -> DepthDecision:
        """Seed 3.1: any classifier failure means deep with every sub-agent."""
        return cls("deep", Intent.UNKNOWN, CREW_NAMES, 0.0, reason)


@dataclass(frozen=True, slots=True)
class ClassifierContext:
    """What the classifier may know about the sender (LABELS.md `ctx`)."""

    interaction_count: int = 5
    has_iot: bool = True
    operator: bool = False
    force_deep: bool = False
    recent_alert: bool = False
    pending_terms: int = 0
    #: The previous message, minutes ago, was an agronomy question ("а норма висіву?").
    recent_advice: bool = False
    #: The farm grows at least one crop: "яка норма висіву?" is about its crops.
    grows_crops: bool = False
    #: The farm's most frequent intents (FarmProfile.typical_intents): they steer
    #: the routing (classifier.toml [steering]).
    typical_intents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Incoming:
    """One message from a user, whatever the channel (Telegram, console, test)."""

    user_id: str
    chat_id: int
    text: str
    trace_id: str
    first_name: str | None = None
    language_code: str | None = None
    message_id: int | None = None
    is_operator: bool = False
    #: The Telegram update it came in (None for the console and peers): a replayed
    #: update is recorded once (bot/transport/inbox.py).
    update_id: int | None = None
    #: The message is a picture; ``text`` is its caption ("" without one).
    photo: bool = False
    #: The picture's Telegram file id (the agronomist's card carries it).
    photo_id: str | None = None
    #: The chat is the sender's own private chat with Stepan: a button pressed there
    #: is under a message sent to them (the /me card is only ever sent there).
    own_chat: bool = False
    #: The chat is one others read too (a group): nothing personal is answered there.
    shared_chat: bool = False
    #: The reading the farmer chose under «про що ви?» (a button): routed as that
    #: intent, whatever the classifier would have said.
    chosen: Intent | None = None


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: the label and the typed action the channel routes back."""

    text: str
    action: Action


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file to send with the reply (a report, a chart)."""

    filename: str
    content: bytes


class Shown(StrEnum):
    """How the reply to a pressed button is shown (bot/delivery/show.py)."""

    #: A new message under the conversation.
    NEW = "new"
    #: The pressed message becomes the reply (a card shows what happened).
    EDIT = "edit"
    #: A short pop-up answer; the pressed message stays as it is.
    POPUP = "popup"
    #: The pressed message keeps its text with the reply's added under it; its
    #: buttons become the reply's (a nightly proposal says what was decided).
    APPEND = "append"


@dataclass(frozen=True, slots=True)
class Notice:
    """A message a pressed button sends to another chat (the agronomist's card to each
    operator): ``photo`` (a Telegram file id) first when there is one, then ``text``."""

    chat_id: int
    text: str
    photo: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """What the user gets back. Text is plain: channels send it without a parse mode."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    document: Attachment | None = None
    photo: Attachment | None = None
    mode: Mode = "light"
    intent: str = ""
    crew: tuple[str, ...] = field(default_factory=tuple)
    #: The operator's technical footer, already the last paragraph of ``text`` (empty
    #: for farmers): a handler that builds on the reply keeps it last.
    footer: str = ""
    #: For a pressed button: how the reply is shown.
    shown: Shown = Shown.NEW
    #: For a pressed button: the pressed message's buttons go (it keeps its text), so
    #: nobody taps twice.
    closes: bool = False
    #: For a pressed button: messages to other chats, each sent on its own (one that
    #: fails does not stop the others), before the reply is shown.
    notices: tuple[Notice, ...] = ()
    #: For a pressed button shown otherwise than as a POPUP: a pop-up shown with it
    #: (an operator's card edited in place says «Збережено»); "" for none.
    popup: str = ""
    #: For a pressed button: its pop-up is an alert the presser dismisses, not a
    #: passing note (a refusal, a term decided).
    alert: bool = False


@dataclass(frozen=True, slots=True)
class DeepRequest:
    """Everything the deep path needs to answer one message (docs/deep-path.md)."""

    incoming: Incoming
    decision: DepthDecision
    crew: tuple[str, ...]
    profile: UserProfile
    farm: FarmProfile
    lang: Language
    now: datetime
    #: The newest conversation summaries (pipeline/recall/), newest first: they go
    #: into the LLM prompts and the composer's context after the profile.
    recall: tuple[str, ...] = ()
    #: When this message opens a new conversation: the newest of ``recall`` on its
    #: subject; the offline composer says where that talk stopped
    #: (pipeline/crew/recall_note.py).
    recalled: str | None = None

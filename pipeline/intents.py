"""Every intent Stepan knows, as a type.

The classifier's rules (``pipeline/rules/classifier.toml``) define how each intent is
recognised; this enum is what the code compares against. The two are checked against
each other when the rules load (:mod:`pipeline.classifier.rules`): an intent the rules
name that is not here, or one here that the rules lack, stops Stepan at start-up
instead of silently routing nowhere. A ``StrEnum`` member equals its string, so a
value read back from the database ("recording") compares equal to the member.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["PIPELINE_INTENTS", "RULE_INTENTS", "Intent"]


class Intent(StrEnum):
    # Light: Stepan answers alone.
    GREETING = "greeting"
    THANKS = "thanks"
    ACK = "ack"
    FAREWELL = "farewell"
    WHOAMI = "whoami"
    HELP = "help"
    SMALLTALK = "smalltalk"
    CLARIFY = "clarify"
    OFFTOPIC = "offtopic"
    # Deep: the crew works.
    GENERAL = "general"
    RECORDING = "recording"
    MULTI_OPS = "multi_ops"
    PLANNING = "planning"
    IOT = "iot"
    IOT_ALERT = "iot_alert"
    ANALYSIS = "analysis"
    SUMMARY = "summary"
    REPORTING = "reporting"
    PLATFORM = "platform"
    DECISION = "decision"
    #: An agronomy question the knowledge base reads (docs/knowledge.md).
    ADVICE = "advice"
    #: A forecast question (issue 27 answers it; until then an honest reply).
    WEATHER = "weather"
    #: A change to a journal record already made (issue 26; until then an honest reply).
    CORRECTION = "correction"
    # The pipeline's own verdicts; no rule matches them.
    #: The classifier failed: deep with every sub-agent (seed 3.1).
    UNKNOWN = "unknown"
    #: The re-entry guard refused a nested message.
    REFUSED = "refused"


#: Intents only the pipeline sets; the rules must not define them.
PIPELINE_INTENTS = frozenset({Intent.UNKNOWN, Intent.REFUSED})
#: Intents the classifier's rules must define, each exactly once.
RULE_INTENTS = frozenset(Intent) - PIPELINE_INTENTS

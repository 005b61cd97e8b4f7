"""Nothing confidential leaves Stepan: the sanitiser every outgoing text passes.

``Sanitizer(PrivacyRules.load(grammar))`` is built once (the Rulebook holds it);
``sanitize(text, known_names=...)`` returns the text with each confidential span
replaced by its kind's tag and the set of kinds it found. docs/peers.md lists what
counts as confidential.
"""

from pipeline.privacy.patterns import Kind, luhn_valid
from pipeline.privacy.rules import DEFAULT_PRIVACY, PrivacyRules
from pipeline.privacy.sanitizer import Sanitized, Sanitizer, redact_shapes

__all__ = [
    "DEFAULT_PRIVACY",
    "Kind",
    "PrivacyRules",
    "Sanitized",
    "Sanitizer",
    "luhn_valid",
    "redact_shapes",
]

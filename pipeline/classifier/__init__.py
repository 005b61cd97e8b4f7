"""The rule-based depth classifier: rules loading (:mod:`.rules`), the word index
(:mod:`.index`), scoring (:mod:`.analysis`) and the routing decision (:mod:`.decision`).
"""

from pipeline.classifier.analysis import Analysis
from pipeline.classifier.decision import Classifier
from pipeline.classifier.rules import DEFAULT_RULES, ClassifierRules, IntentSpec, Settings

__all__ = ["DEFAULT_RULES", "Analysis", "Classifier", "ClassifierRules", "IntentSpec", "Settings"]

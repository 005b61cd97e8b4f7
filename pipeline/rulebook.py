"""Every rules file, loaded once and handed down.

``bot/wiring/factory.py`` calls :meth:`Rulebook.load` once and passes each part to the
constructor of whoever uses it (the classifier, the journal's parser and
vocabulary, the onboarding, the deep path's tools, the crew and its prompts, the
sensor store and the alert watcher, the peer desk and server, the sanitiser, the
reply's eval rules).
Nothing in the pipeline loads one of these files by itself, so a test builds a
pipeline with other rules by passing another rulebook (``dataclasses.replace``) or
another part in; tests load one per session.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.classifier import DEFAULT_RULES, Classifier, ClassifierRules
from pipeline.classifier.lookback import LookBack
from pipeline.classifier.model import PACKAGED_MODEL, IntentModel
from pipeline.crew.config import AGENTS_FILE, PROMPTS_FILE, CrewSpec, Prompts
from pipeline.crew.words import ADVICE_FILE, COMPOSE_FILE, Words
from pipeline.farm.dictionary import (
    CROPS_RULES,
    OPERATIONS_RULES,
    NameRules,
    OperationsFile,
    Vocabulary,
    load_shared_crops,
)
from pipeline.farm.journal.edits.probe import CorrectionProbe
from pipeline.farm.journal.edits.words import EDIT_RULES, EditWords
from pipeline.farm.journal.parsing import OperationParser, OperationRules
from pipeline.farm.products import PRODUCTS_RULES, Catalogue
from pipeline.farm.sensors.readings import RULES_FILE as SENSORS_RULES
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.farm.words.dates import DEFAULT_DATES, DateWords
from pipeline.farm.words.units import Units
from pipeline.grammar import DEFAULT_GRAMMAR, Grammar
from pipeline.knowledge import KNOWLEDGE_DIR, KnowledgeBase
from pipeline.language.choice import LANGUAGE_RULES, LanguageRules
from pipeline.learning.config import DEFAULT_LEARNING, LearningRules
from pipeline.learning.evals import DEFAULT_EVALS, EvalRules
from pipeline.memory.habits.rules import RULES_FILE as PROFILES_RULES
from pipeline.memory.habits.rules import LearningRules as ProfileRules
from pipeline.onboarding.reading import ONBOARDING_RULES, OnboardingRules
from pipeline.peers.directory import DEFAULT_PEERS, PeerDirectory
from pipeline.privacy import DEFAULT_PRIVACY, PrivacyRules
from pipeline.recall.rules import RECALL_RULES, RecallRules
from pipeline.weather.asking import DEFAULT_WEATHER, WeatherWords

__all__ = ["Rulebook"]


@dataclass(frozen=True, slots=True)
class Rulebook:
    grammar: Grammar
    #: Built once: its rules are checked against the Intent enum as it loads.
    classifier: Classifier
    dates: DateWords
    vocabulary: Vocabulary
    operations: OperationRules
    words: Words
    #: Sensor types, units and plausible ranges (validation, alerts, the tools).
    sensors: SensorTypes
    #: The crew as data: agents, tools, limits (rules/agents.toml).
    crew: CrewSpec
    #: The LLM prompts (rules/prompts.toml).
    prompts: Prompts
    #: The agronomy cards and their full-text index (pipeline/rules/knowledge/).
    knowledge: KnowledgeBase
    #: The peer agents (rules/peers.toml), checked against their example phrases.
    peers: PeerDirectory
    #: What counts as confidential before a question leaves Stepan (rules/privacy.toml).
    privacy: PrivacyRules
    #: Checks on every reply (rules/evals.toml; docs/learning.md).
    evals: EvalRules
    #: Learnings, the section-15 targets, the nightly job (rules/learning.toml).
    learning: LearningRules
    #: When the reply language switches, and when the switch lasts (rules/language.toml).
    language: LanguageRules
    #: How onboarding reads typed answers and interruptions (rules/onboarding.toml).
    onboarding: OnboardingRules
    #: The shortcuts and the conversation memory (rules/recall.toml).
    recall: RecallRules
    #: What farm profiles learn from use (rules/profiles.toml; the memory layer).
    profiles: ProfileRules
    #: The words of a correction of the journal (rules/journal_edits.toml).
    journal_edits: EditWords
    #: How a weather question names its days and what it asks (rules/weather.toml).
    weather: WeatherWords

    @property
    def units(self) -> Units:
        return self.operations.units

    @property
    def catalogue(self) -> Catalogue:
        return self.operations.catalogue

    def parser(self) -> OperationParser:
        return OperationParser(self.operations)

    @classmethod
    def load(
        cls,
        *,
        grammar: Path = DEFAULT_GRAMMAR,
        classifier: Path = DEFAULT_RULES,
        dates: Path = DEFAULT_DATES,
        operations: Path = OPERATIONS_RULES,
        crops: Path = CROPS_RULES,
        products: Path = PRODUCTS_RULES,
        compose: Path = COMPOSE_FILE,
        advice: Path = ADVICE_FILE,
        sensors: Path = SENSORS_RULES,
        agents: Path = AGENTS_FILE,
        prompts: Path = PROMPTS_FILE,
        knowledge: Path = KNOWLEDGE_DIR,
        peers: Path = DEFAULT_PEERS,
        privacy: Path = DEFAULT_PRIVACY,
        evals: Path = DEFAULT_EVALS,
        learning: Path = DEFAULT_LEARNING,
        language: Path = LANGUAGE_RULES,
        onboarding: Path = ONBOARDING_RULES,
        recall: Path = RECALL_RULES,
        profiles: Path = PROFILES_RULES,
        journal_edits: Path = EDIT_RULES,
        weather: Path = DEFAULT_WEATHER,
        model: Path | None = PACKAGED_MODEL,
    ) -> Rulebook:
        """Read and check every file (a ValueError names what is wrong)."""
        thresholds = Grammar.load(grammar)
        date_words = DateWords.load(thresholds, dates)
        raw_operations = OperationsFile.load(operations)
        names = NameRules.from_rules(raw_operations, thresholds)
        shared_crops = load_shared_crops(crops)
        operation_rules = OperationRules.from_rules(
            raw_operations, names, date_words, thresholds, Catalogue.load(thresholds, products)
        )
        knowledge_base = KnowledgeBase.load(
            thresholds, operation_rules.units, shared_crops, names, knowledge, date_words
        )
        # The knowledge base's question reader scores the advice intent.
        classifier_rules = ClassifierRules.load(classifier)
        edit_words = EditWords.load(journal_edits)
        corrections = CorrectionProbe(
            edit_words,
            operation_rules,
            Vocabulary(names, shared_crops).dictionary(),
            classifier_rules.settings.trigger_weight,
        )
        depth = Classifier(
            classifier_rules,
            thresholds,
            probes={
                "knowledge": knowledge_base.claim,
                "lookback": LookBack.from_rules(classifier_rules, thresholds).claim,
                "edits": corrections.claim,
            },
            model=_intent_model(model),
        )
        return cls(
            grammar=thresholds,
            classifier=depth,
            dates=date_words,
            vocabulary=Vocabulary(names, shared_crops),
            operations=operation_rules,
            words=Words.load(thresholds, compose, advice, light=depth.light_intents),
            sensors=SensorTypes.load(sensors),
            crew=CrewSpec.load(agents),
            prompts=Prompts.load(prompts),
            knowledge=knowledge_base,
            peers=PeerDirectory.load(thresholds, peers),
            privacy=PrivacyRules.load(thresholds, privacy),
            evals=EvalRules.load(evals),
            learning=LearningRules.load(learning),
            language=LanguageRules.load(language),
            onboarding=OnboardingRules.load(thresholds, onboarding),
            recall=RecallRules.load(recall),
            profiles=ProfileRules.load(profiles),
            journal_edits=edit_words,
            weather=WeatherWords.load(thresholds, date_words, weather),
        )


def _intent_model(path: Path | None) -> IntentModel | None:
    """The classifier's learned fallback (None, or a file that cannot be read: the
    rules route alone)."""
    return None if path is None else IntentModel.load_or_none(path)

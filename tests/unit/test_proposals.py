"""Nightly routing proposals from stored corrections: verified on the packaged dev
corpus and on all corrections before they are offered."""

from __future__ import annotations

from dataclasses import replace

from pipeline.intents import Intent
from pipeline.learning.config import LearningRules
from pipeline.learning.overlay import OverlayTerm, compile_overlay
from pipeline.learning.proposals import Example, accuracy, load_examples, propose
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext

#: Farm records the packaged rules route elsewhere (issue 13), corrected to recording.
RECORDS = [
    Example("розкидали селітру на 9-му, по 120 кило", Intent.RECORDING),
    Example("вчора розкидали аміачну селітру на Західному", Intent.RECORDING),
    Example("розкидали калійку на 3-му по 80 кг", Intent.RECORDING),
]


def test_the_dev_corpus_is_packaged_and_the_rules_score_on_it(rules: Rulebook) -> None:
    dev = load_examples()
    assert len(dev) >= 200
    assert accuracy(rules.classifier, dev) >= 0.9


def test_corrections_become_a_verified_proposal(rules: Rulebook) -> None:
    nightly = LearningRules.load().nightly
    dev = load_examples()
    ctx = ClassifierContext()
    assert all(rules.classifier.classify(e.text, ctx).intent != e.intent for e in RECORDS[:1])
    proposals = propose(rules.classifier.rules, rules.grammar, [], RECORDS, dev, nightly)
    proposal = proposals[0]  # the best supported first
    assert len(proposals) <= nightly.max_proposals
    assert proposal.term == OverlayTerm(Intent.RECORDING, "trigger", "розкидали")
    assert proposal.support == len(RECORDS)
    assert proposal.dev_after >= proposal.dev_before
    assert proposal.corrections_after > proposal.corrections_before
    # Applied as data, it routes a message of the same kind it has never seen.
    applied = compile_overlay(rules.classifier.rules, rules.grammar, [proposal.term])
    assert applied.classify("розкидали сульфат на 2-му", ctx).intent == Intent.RECORDING


def test_a_proposal_that_lowers_dev_accuracy_is_never_offered(rules: Rulebook) -> None:
    nightly = replace(LearningRules.load().nightly, min_support=1)
    dev = load_examples()
    # «полі» (on the field) is in many recording and iot examples of the dev corpus:
    # making it a planning word would fix these corrections and break those.
    wrong = [
        Example("що там на полі", Intent.PLANNING),
        Example("що на полі буде", Intent.PLANNING),
    ]
    proposals = propose(rules.classifier.rules, rules.grammar, [], wrong, dev, nightly)
    assert all(p.term.term != "полі" for p in proposals)
    for p in proposals:
        assert p.dev_after >= p.dev_before and p.corrections_after > p.corrections_before


def test_terms_already_in_force_are_not_proposed_again(rules: Rulebook) -> None:
    nightly = LearningRules.load().nightly
    term = OverlayTerm(Intent.RECORDING, "trigger", "розкидали")
    proposals = propose(
        rules.classifier.rules, rules.grammar, [term], RECORDS, load_examples(), nightly
    )
    assert term not in [p.term for p in proposals]

"""Peer routing benchmark: what the peer check adds to every message.

    python bench/peer_routing.py [--corpus PATH] [--repeat N] [--rounds R] [--json]

Every message Stepan handles is first checked for a peer's question
(``PeerRouter.route``: clauses, the directory's terms, the classifier's claim on a
clause a peer matches). This times that check over the routing corpus next to the
depth classifier's own decision on the same messages, measured in the same run
(rounds interleaved, the best round of each), and counts the messages routed to a
peer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.peers.routing import PeerRouter, classifier_strength  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.types import ClassifierContext  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "routing-dev.jsonl"


def per_message_us(fn: Callable[[str], Any], texts: Sequence[str], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for text in texts:
            fn(text)
    return (time.perf_counter() - start) / (repeat * len(texts)) * 1e6


def best_of(
    rounds: int, repeat: int, texts: Sequence[str], *fns: Callable[[str], Any]
) -> list[float]:
    """Each function's best round, the rounds interleaved (a busy machine slows both)."""
    for fn in fns:
        for text in texts:  # warm the token caches, as a running bot has them
            fn(text)
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            best[index] = min(best[index], per_message_us(fn, texts, repeat))
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    texts = [
        json.loads(line)["text"]
        for line in args.corpus.read_text("utf-8").splitlines()
        if line.strip()
    ]
    rules = Rulebook.load()
    router = PeerRouter(rules.peers, classifier_strength(rules.classifier))
    ctx = ClassifierContext()
    classify_us, route_us = best_of(
        args.rounds, args.repeat, texts, lambda t: rules.classifier.classify(t, ctx), router.route
    )
    routed = [text for text in texts if router.route(text) is not None]
    result = {
        "messages": len(texts),
        "routed_to_a_peer": len(routed),
        "classify_us_per_message": round(classify_us, 1),
        "route_us_per_message": round(route_us, 1),
        "ratio_route_to_classify": round(route_us / classify_us, 2),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"corpus: {args.corpus} ({len(texts)} messages)")
    print(f"routed to a peer: {len(routed)}: {routed}")
    print(f"classifier (baseline): {classify_us:.1f} µs per message")
    print(f"peer routing:          {route_us:.1f} µs per message -> x{route_us / classify_us:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Journal benchmark: the operation parser on a labelled corpus of farmers' messages.

    python bench/journal.py [--corpus FILE] [--json] [--predict] [--predictions FILE]

The corpus is JSON lines. The first line describes the farm and the day::

    {"today": "2026-05-14", "farm": {"fields": [{"name": "Поле 3", "synonyms": ["field 3"],
     "area_ha": 85}], "crops": ["соняшник"]}}

then one line per message::

    {"id": "m1", "text": "...", "lang": "uk", "record": true, "ops": [{"type": "spraying",
     "field": "Поле 3", "crop": "sunflower", "product": "Абакус", "rate": 1.5,
     "rate_unit": "l/ha", "area_ha": null, "amount": null, "amount_unit": null,
     "yield_t_ha": null, "date": "2026-05-13", "status": "done"}]}

``field`` is the field's name, ``crop`` the crop's English name from the shared crop
list, ``product`` the canonical product name, units as in the operations vocabulary
(``[units]`` of ``pipeline/rules/operations.toml``), ``status`` done or planned, a
missing value null. An operation on several fields is one op per field.

Scores: the accuracy of each op field over the aligned ops (an op missing or extra
counts every field wrong), ``messages_exact`` (the record flag and every op right),
``false_records`` (a message that records nothing read as a record) and
``missed_records`` (a record read as nothing). Names compare as the farm dictionary
matches them (inflections and one typo), products through the catalogue ("Roundup"
is "Раундап"), numbers to 0.1%. ``--predict`` prints, instead of scores, one JSON
line per message ``{"id", "record", "ops"}`` in the same shape; ``--predictions FILE``
scores such lines (another parser's, or this one's from an older commit) instead of
running the parser. Time per message is printed next to a ``str.lower().split()``
baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.farm.dictionary import Dictionary, DictionaryEntry, Kind  # noqa: E402
from pipeline.farm.journal.parsing import OperationParser, ParsedOperation  # noqa: E402
from pipeline.farm.slugs import make_id  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.text import fold  # noqa: E402

DEFAULT_CORPUS = REPO / "bench" / "data" / "journal-dev.jsonl"
TALK_CORPUS = REPO / "bench" / "data" / "journal-conversations-dev.jsonl"
OP_FIELDS = (
    "type", "field", "crop", "product", "rate", "rate_unit", "area_ha", "amount",
    "amount_unit", "yield_t_ha", "date", "status",
)  # fmt: skip
_NUMBERS = frozenset({"rate", "area_ha", "amount", "yield_t_ha"})
_TOLERANCE = 1e-3
#: Above this many ops a message is aligned greedily instead of by every permutation.
_EXHAUSTIVE = 6


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    text: str
    lang: str
    record: bool
    ops: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Corpus:
    today: date
    fields: tuple[DictionaryEntry, ...]
    crops: tuple[str, ...]
    messages: tuple[Message, ...]


def load_corpus(path: Path) -> Corpus:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    header = json.loads(lines[0])
    farm = header.get("farm", {})
    fields = tuple(
        DictionaryEntry(
            "field",
            make_id("field", item["name"]) or item["name"],
            item["name"],
            tuple(item.get("synonyms", ())),
        )
        for item in farm.get("fields", [])
    )
    messages = []
    for line in lines[1:]:
        row = json.loads(line)
        ops = tuple({key: op.get(key) for key in OP_FIELDS} for op in row.get("ops", []))
        messages.append(Message(str(row["id"]), row["text"], row.get("lang", ""),
                                bool(row["record"]), ops))  # fmt: skip
    return Corpus(
        date.fromisoformat(header["today"]), fields, tuple(farm.get("crops", ())), tuple(messages)
    )


# =========================================================================== predicting


class Reader:
    """The parser as the bot builds it, with the corpus's farm as its dictionary."""

    def __init__(self, corpus: Corpus, rules: Rulebook) -> None:
        self.rules = rules
        self.parser = OperationParser(rules.operations)
        shared = rules.vocabulary.shared()
        crops: list[DictionaryEntry] = []
        for name in corpus.crops:
            known = shared.resolve("crop", name)
            crop_id = known.canonical_id if known is not None else make_id("crop", name)
            crops.append(DictionaryEntry("crop", crop_id or name, name, ()))
        self.dictionary = rules.vocabulary.dictionary([*corpus.fields, *crops])
        self.shared = shared
        self.today = corpus.today

    def predict(self, message: Message) -> dict[str, Any]:
        parsed = self.parser.parse_all(message.text, self.dictionary, self.today)
        ops = [op for operation in parsed.operations for op in self._ops(operation)]
        return {"id": message.id, "record": bool(ops), "ops": ops}

    def _ops(self, op: ParsedOperation) -> list[dict[str, Any]]:
        body = {
            "type": op.op_type,
            "field": None,
            "crop": self._crop(op),
            "product": op.product,
            "rate": op.rate,
            "rate_unit": op.rate_unit,
            "area_ha": op.area_ha,
            "amount": op.amount,
            "amount_unit": op.amount_unit,
            "yield_t_ha": op.yield_t_ha,
            "date": op.op_date.isoformat(),
            "status": op.status,
        }
        names = op.field_names or (None,)
        return [{**body, "field": name} for name in names]

    def _crop(self, op: ParsedOperation) -> str | None:
        """The English name of the shared crop, else the crop as named."""
        entry = self.shared.get(op.crop_id) if op.crop_id else None
        if entry is not None:
            english = [name for name in entry.names if name.isascii()]
            return english[0] if english else entry.canonical_id.partition(":")[2]
        return op.crop_name or op.crop_phrase


# =========================================================================== scoring


class Judge:
    """Compares a predicted op field with a labelled one (see the module docstring)."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.catalogue = reader.rules.catalogue
        self.name_rules = reader.rules.vocabulary.rules
        self.synonyms = {fold(e.display): e.synonyms for e in reader.dictionary.entries("field")}

    def same(self, key: str, expected: Any, got: Any) -> bool:
        if expected is None or got is None:
            return expected is None and got is None
        if key in _NUMBERS:
            return abs(float(expected) - float(got)) <= _TOLERANCE * max(1.0, abs(float(expected)))
        if key == "field":
            return self._same_name("field", str(expected), str(got))
        if key == "crop":
            return self._same_crop(str(expected), str(got))
        if key == "product":
            return self._same_product(str(expected), str(got))
        return bool(expected == got)

    def _same_name(self, kind: Kind, expected: str, got: str) -> bool:
        if _plain(expected) == _plain(got):
            return True
        synonyms = self.synonyms.get(fold(expected), ()) if kind == "field" else ()
        entry = DictionaryEntry(kind, f"{kind}:expected", expected, synonyms)
        return Dictionary([entry], rules=self.name_rules).resolve(kind, got) is not None

    def _same_crop(self, expected: str, got: str) -> bool:
        shared = self.reader.shared
        one, other = shared.resolve("crop", expected), shared.resolve("crop", got)
        if one is not None and other is not None:
            return one.canonical_id == other.canonical_id
        return self._same_name("crop", expected, got)

    def _same_product(self, expected: str, got: str) -> bool:
        if _plain(expected) == _plain(got):
            return True
        one, other = self.catalogue.resolve(expected), self.catalogue.resolve(got)
        if one is not None and other is not None and one.id == other.id:
            return _digits(expected) == _digits(got)
        return self._same_name("product", expected, got)

    def align(
        self, expected: Sequence[dict[str, Any]], got: Sequence[dict[str, Any]]
    ) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
        """Pairs of (labelled, predicted) ops that agree most; None where one is missing."""

        def score(pairs: Sequence[tuple[int, int]]) -> int:
            return sum(
                self.same(key, expected[i].get(key), got[j].get(key))
                for i, j in pairs
                for key in OP_FIELDS
            )

        n, m = len(expected), len(got)
        best: list[tuple[int, int]] = []
        if min(n, m) and max(n, m) <= _EXHAUSTIVE:
            candidates = (
                list(zip(range(n), perm, strict=False)) if n <= m else
                list(zip(perm, range(m), strict=False))
                for perm in itertools.permutations(range(max(n, m)), min(n, m))
            )  # fmt: skip
            best = max(candidates, key=score)
        else:
            free = set(range(m))
            for i in range(n):
                if not free:
                    break
                j = max(free, key=lambda j: score([(i, j)]))
                best.append((i, j))
                free.discard(j)
        pairs: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = [
            (expected[i], got[j]) for i, j in best
        ]
        pairs += [(expected[i], None) for i in range(n) if i not in {p[0] for p in best}]
        pairs += [(None, got[j]) for j in range(m) if j not in {p[1] for p in best}]
        return pairs


def _plain(text: str) -> str:
    return "".join(ch for ch in fold(text) if ch.isalnum())


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def score(
    corpus: Corpus, reader: Reader, predictions: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    judge = Judge(reader)
    right = dict.fromkeys(OP_FIELDS, 0)
    slots = exact = false_records = missed_records = missing_ops = extra_ops = 0
    misses: list[dict[str, Any]] = []
    for message in corpus.messages:
        if predictions is None:
            predicted = reader.predict(message)
        else:
            predicted = predictions.get(message.id, {"id": message.id, "record": False, "ops": []})
        pairs = judge.align(message.ops, predicted["ops"])
        wrong: list[str] = []
        for labelled, got in pairs:
            slots += 1
            missing_ops += got is None
            extra_ops += labelled is None
            for key in OP_FIELDS:
                ok = labelled is not None and got is not None
                ok = ok and judge.same(key, labelled.get(key), got.get(key))  # type: ignore[union-attr]
                right[key] += ok
                if not ok and labelled is not None and got is not None:
                    wrong.append(key)
        false_records += predicted["record"] and not message.record
        missed_records += message.record and not predicted["record"]
        ok_message = predicted["record"] == message.record and all(
            labelled is not None and got is not None for labelled, got in pairs
        ) and not wrong  # fmt: skip
        exact += ok_message
        if not ok_message:
            misses.append(
                {
                    "id": message.id,
                    "text": message.text,
                    "wrong": sorted(set(wrong)),
                    "expected": list(message.ops),
                    "got": predicted["ops"],
                }
            )
    total = len(corpus.messages)
    per_field = {key: round(right[key] / slots, 4) if slots else 1.0 for key in OP_FIELDS}
    overall = sum(right.values()) / (slots * len(OP_FIELDS)) if slots else 1.0
    return {
        "messages": total,
        "records": sum(m.record for m in corpus.messages),
        "ops": sum(len(m.ops) for m in corpus.messages),
        "field_accuracy": round(overall, 4),
        "per_field": per_field,
        "messages_exact": round(exact / total, 4) if total else 1.0,
        "false_records": false_records,
        "missed_records": missed_records,
        "missing_ops": missing_ops,
        "extra_ops": extra_ops,
        "misses": misses,
    }


def timing(corpus: Corpus, reader: Reader, repeat: int = 5) -> dict[str, float]:
    texts = [m.text for m in corpus.messages]

    def best_of(fn: Any) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for text in texts:
                fn(text)
            best = min(best, time.perf_counter() - start)
        return best / len(texts) * 1e6

    parse = reader.parser.parse_all
    parse_us = best_of(lambda text: parse(text, reader.dictionary, reader.today))
    base_us = best_of(lambda text: text.lower().split())
    return {
        "us_per_message": round(parse_us, 1),
        "baseline_us_per_message": round(base_us, 3),
        "ratio_to_baseline": round(parse_us / base_us, 1),
    }


def print_report(path: Path, report: dict[str, Any]) -> None:
    print(f"corpus: {path} ({report['messages']} messages, {report['records']} records, "
          f"{report['ops']} ops)")  # fmt: skip
    print(f"field accuracy     {report['field_accuracy'] * 100:6.1f}%")
    for key, value in report["per_field"].items():
        print(f"  {key:<14}{value * 100:6.1f}%")
    print(f"messages exact     {report['messages_exact'] * 100:6.1f}%")
    print(f"false records      {report['false_records']}")
    print(f"missed records     {report['missed_records']}")
    print(f"missing / extra ops {report['missing_ops']} / {report['extra_ops']}")
    for miss in report["misses"]:
        print(f"\n{miss['id']}: {miss['text']}\n  wrong: {', '.join(miss['wrong']) or 'ops'}")
        print(f"  expected: {json.dumps(miss['expected'], ensure_ascii=False)}")
        print(f"  got:      {json.dumps(miss['got'], ensure_ascii=False)}")
    if "us_per_message" not in report:
        return
    print(
        f"\ntime per message: {report['us_per_message']:.1f} µs; baseline str.lower()+split: "
        f"{report['baseline_us_per_message']:.3f} µs -> ratio x{report['ratio_to_baseline']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--predict", action="store_true", help="print one JSON line a message")
    parser.add_argument("--predictions", type=Path, help="score these JSON lines instead")
    parser.add_argument(
        "--conversations",
        nargs="?",
        type=Path,
        const=TALK_CORPUS,
        default=None,
        help="score conversations (messages and presses) by the journal's final state",
    )
    parser.add_argument("--verbose", action="store_true", help="with --conversations: every one")
    args = parser.parse_args(argv)
    if args.conversations is not None:
        from bench import journal_talk

        return journal_talk.main(args.conversations, as_json=args.json, verbose=args.verbose)
    if not args.corpus.is_file():
        print(f"journal corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    corpus = load_corpus(args.corpus)
    reader = Reader(corpus, Rulebook.load())
    if args.predict:
        for message in corpus.messages:
            print(json.dumps(reader.predict(message), ensure_ascii=False))
        return 0
    if args.predictions is not None:
        lines = args.predictions.read_text(encoding="utf-8").splitlines()
        given = [json.loads(line) for line in lines if line.strip()]
        report = score(corpus, reader, {str(row["id"]): row for row in given})
    else:
        report = score(corpus, reader)
        report.update(timing(corpus, reader))
    report["corpus"] = str(args.corpus)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_report(args.corpus, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Strip everything confidential from a text before it leaves Stepan.

Two kinds of evidence, merged: shapes (:mod:`pipeline.privacy.patterns`: e-mails,
phones, IBANs, cards, keys, ids) and words (``rules/privacy.toml``: a cue such as
"пароль", "ІПН", "вул.", "мене звати" or "між нами" says what the next words are).
Each confidential span becomes its kind's tag ("[phone]", "[name]" ...), so the
peer still reads a sentence and sees that something was withheld; a sentence the
user marked private is dropped whole.

Names are the hard part: there is no list of every name. A capitalised word counts
as one after a cue ("мене звати", "пан", "моя дружина"), when it is a common given
name, when it ends like a surname ("-енко", "-чук"), in a pair with such a word
("Ірина Коваль"), or when it is a name the caller knows (the user's own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.privacy.patterns import Kind, Span, find_all
from pipeline.privacy.rules import PrivacyRules
from pipeline.text import stem, tokenize

__all__ = ["Sanitized", "Sanitizer", "redact_shapes"]

_TOKEN = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+(?:['’ʼ][^\W\d_]+)*")
_CYRILLIC = re.compile(r"[а-яіїєґё]", re.I)
_SEPARATOR = re.compile(r"\s*(?:[:=]|[—–-](?=\s))")
_VALUE = re.compile(r"\s*[\"'«]?([^\s\"'»]+)")
_SENTENCE_END = re.compile(r"[.!?…]+(?=\s|$)|\n+")
#: Words between an id cue and the id: "паспорт серії АА номер 123456", "№".
_ID_FILLER = frozenset(
    " ".join(tokenize(word))
    for word in ("номер", "no", "n", "number", "серія", "серії", "серии", "series", "num")
)
_NUMBER_KINDS: dict[str, Kind] = {"id": "id", "account": "iban", "card": "card", "phone": "phone"}
#: Kinds that win when two spans overlap (most telling first).
_ORDER: tuple[Kind, ...] = (
    "private", "iban", "card", "secret", "phone", "email", "id", "address", "name"
)  # fmt: skip
_PRIORITY: dict[Kind, int] = {kind: rank for rank, kind in enumerate(_ORDER)}


@dataclass(frozen=True, slots=True)
class Sanitized:
    text: str
    #: The kinds that were found and replaced.
    found: frozenset[Kind]

    @property
    def confidential(self) -> bool:
        return bool(self.found)


@dataclass(frozen=True, slots=True)
class _Tok:
    start: int
    end: int
    raw: str
    fold: str

    @property
    def capitalised(self) -> bool:
        # "NPK", "ТОВ" are acronyms, not names.
        return self.raw[:1].isupper() and not (len(self.raw) > 1 and self.raw.isupper())

    @property
    def number(self) -> bool:
        return self.raw[:1].isdigit()


def _tokens(text: str) -> list[_Tok]:
    found = []
    for match in _TOKEN.finditer(text):
        raw = match.group()
        folded = " ".join(tokenize(raw)) or raw.lower()
        found.append(_Tok(match.start(), match.end(), raw, folded))
    return found


class Sanitizer:
    """Built once from the rules (the Rulebook holds one) and shared."""

    def __init__(self, rules: PrivacyRules) -> None:
        self._rules = rules

    @property
    def rules(self) -> PrivacyRules:
        return self._rules

    def sanitize(
        self, text: str, *, known_names: Iterable[str] = (), limit: int | None = None
    ) -> Sanitized:
        """``text`` with every confidential span replaced by its tag."""
        toks = _tokens(text)
        spans = find_all(text)
        spans.extend(_Scan(self._rules, text, toks, known_names).spans())
        rendered, found = self._render(text, _merge(spans))
        rendered = " ".join(rendered.split())
        if limit is not None and len(rendered) > limit:
            rendered = rendered[: limit - 1] + "…"
        return Sanitized(rendered, frozenset(found))

    def _render(self, text: str, spans: Sequence[Span]) -> tuple[str, set[Kind]]:
        parts: list[str] = []
        found: set[Kind] = set()
        cursor = 0
        for span in spans:
            tag = self._rules.tags[span.kind]
            gap = text[cursor : span.start]
            # "[name] [name]" for a first and a last name reads as one name.
            if parts and parts[-1] == tag and gap.strip(" -") == "":
                cursor = span.end
                continue
            parts.append(gap)
            parts.append(tag)
            found.add(span.kind)
            cursor = span.end
        parts.append(text[cursor:])
        return "".join(parts), found


def redact_shapes(text: str, replacement: str) -> str:
    """Only the shapes (no word rules): e-mails, phones, IBANs, cards, keys, ids, each
    replaced by ``replacement``. For callers that hold no rules (the crew's contract)."""
    parts: list[str] = []
    cursor = 0
    for span in _merge(find_all(text)):
        parts.append(text[cursor : span.start])
        parts.append(replacement)
        cursor = span.end
    parts.append(text[cursor:])
    return "".join(parts)


def _merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one, of the most telling kind."""
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            kind = min(last.kind, span.kind, key=_PRIORITY.__getitem__)
            merged[-1] = Span(last.start, max(last.end, span.end), kind)
        else:
            merged.append(span)
    return merged


class _Scan:
    """One pass over the tokens of one text, collecting the spans the cues point at."""

    def __init__(
        self, rules: PrivacyRules, text: str, toks: list[_Tok], known_names: Iterable[str]
    ) -> None:
        self.rules = rules
        self.text = text
        self.toks = toks
        self.folds = [tok.fold for tok in toks]
        self.found: list[Span] = []
        self.kept = self._not_names()
        self.known = {stem(name) for raw in known_names for name in tokenize(raw) if name}
        self.cyrillic = bool(_CYRILLIC.search(text))

    def spans(self) -> list[Span]:
        i = 0
        while i < len(self.toks):
            hit = self.rules.cues.match_at(self.folds, i)
            if hit is None:
                self._shape_names(i)
                i += 1
                continue
            label, length = hit
            self._cue(label, i, i + length)
            i += length
        return self.found

    # ------------------------------------------------------------------ cues

    def _cue(self, label: str, start: int, after: int) -> None:
        match label:
            case "private":
                self._private(start)
            case "secret":
                self._secret(after, "secret")
            case "login":
                self._secret(after, "id")
            case "id" | "account" | "card" | "phone":
                self._number_value(label, after)
            case "name" | "honorific" | "relation":
                self._names_from(after, "name")
            case "street":
                self._street(start, after)
            case "unit" | "postal":
                if after < len(self.toks) and self.toks[after].number:
                    self._add(start, after + 1, "address")
            case "given":
                self._given(start)

    def _private(self, index: int) -> None:
        """The bracketed remark holding the marker, else its whole sentence."""
        at = self.toks[index].start
        text = self.text
        opening = max(text.rfind("(", 0, at), text.rfind("[", 0, at))
        if opening >= 0:
            closing_char = ")" if text[opening] == "(" else "]"
            closing = text.find(closing_char, at)
            if closing >= 0 and text.rfind(closing_char, opening, at) < 0:
                self.found.append(Span(opening, closing + 1, "private"))
                return
        start = 0
        for end in _SENTENCE_END.finditer(text):
            if end.end() <= at:
                start = end.end()
            else:
                self.found.append(Span(start, end.end(), "private"))
                return
        self.found.append(Span(start, len(text), "private"))

    def _secret(self, after: int, kind: Kind) -> None:
        toks = self.toks
        positions = [after]
        # "пароль від пошти: X" - the value comes after the object.
        if after + 1 < len(toks) and toks[after].fold in self.rules.objects:
            positions.insert(0, after + 2)
        for k in positions:
            prev_end = toks[k - 1].end
            sep = _SEPARATOR.match(self.text, prev_end)
            explicit = sep is not None
            cursor = sep.end() if sep else prev_end
            if not explicit and k < len(toks) and toks[k].fold in self.rules.separators:
                explicit, cursor = True, toks[k].end
            value = _VALUE.match(self.text, cursor)
            if value is None or len(value.group(1)) > self.rules.max_value_chars:
                continue
            word = value.group(1).rstrip(".,;)")
            if word and (explicit or self._looks_secret(word)):
                begin = value.start(1)
                self.found.append(Span(begin, begin + len(word), kind))
                return

    def _looks_secret(self, word: str) -> bool:
        """Without ":" or "is" between, only a value that cannot be an ordinary word."""
        if any(ch.isdigit() for ch in word) or any(not ch.isalnum() for ch in word):
            return True
        if any(ch.isupper() for ch in word[1:]):
            return True
        # A Latin word in a Cyrillic message ("пароль qwerty").
        return self.cyrillic and word.isascii()

    def _number_value(self, label: str, after: int) -> None:
        toks = self.toks
        first = after
        while first < len(toks) and toks[first].fold in _ID_FILLER:
            first += 1
        k, digits = self._number_run(first)
        needed = 5 if label == "id" else 6
        if digits >= needed:
            kind = _NUMBER_KINDS[label]
            begin = toks[first].start
            if label == "phone" and begin > 0 and self.text[begin - 1] == "+":
                begin -= 1
            self.found.append(Span(begin, toks[k - 1].end, kind))

    def _number_run(self, first: int) -> tuple[int, int]:
        """Where a number written in pieces from ``first`` ends ("+380 67 123-45-67",
        "AB 123456"), and how many digits it holds."""
        toks = self.toks
        k = first
        digits = 0
        while k < len(toks) and (
            toks[k].number
            or (toks[k].raw.isupper() and len(toks[k].raw) <= 3)
            or (k > first and toks[k].fold in _ID_FILLER)
        ):
            gap = self.text[toks[k - 1].end : toks[k].start] if k > first else ""
            if k > first and gap.strip(" -()+.№:") != "":
                break
            digits += sum(ch.isdigit() for ch in toks[k].raw)
            k += 1
        return k, digits

    def _street(self, start: int, after: int) -> None:
        toks = self.toks
        k = after
        if k < len(toks) and (toks[k].capitalised or toks[k].number):
            while k < len(toks) and (toks[k].capitalised or toks[k].number) and k - after < 4:
                k += 1
            # "Шевченка 12, кв. 5": the house and flat numbers belong to it.
            while k + 1 < len(toks) and self.rules.cues.label(toks[k].fold) == "unit":
                if not toks[k + 1].number:
                    break
                k += 2
            self._add(start, k, "address")

    def _given(self, index: int) -> None:
        if self.toks[index].capitalised and index not in self.kept:
            self._names_from(index, "name")

    # ------------------------------------------------------------------ names by shape

    def _shape_names(self, i: int) -> None:
        tok = self.toks[i]
        if not tok.capitalised or i in self.kept or tok.number:
            return
        known = self._known(tok.fold)
        if (known or tok.fold.endswith(self.rules.surname_endings)) and len(tok.fold) >= 4:
            self._add(i, i + 1, "name")
            return
        if self._surname_follows(i):
            self._add(i, i + 2, "name")
        # A street written the English way: "221B Baker Street".
        if i > 0 and self.toks[i - 1].number:
            self._english_street(i)

    def _surname_follows(self, i: int) -> bool:
        """ "Іван Петренко": the capitalised word after ``i`` is shaped like a surname."""
        tok = self.toks[i]
        nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
        return (
            nxt is not None
            and nxt.capitalised
            and i + 1 not in self.kept
            and self.text[tok.end : nxt.start] in (" ", "-")
            and nxt.fold.endswith(self.rules.surname_pair_endings)
            and len(nxt.fold) >= 4
        )

    def _english_street(self, i: int) -> None:
        """Capitalised words after a house number up to a street word: an address."""
        k = i
        while k < len(self.toks) and self.toks[k].capitalised and k - i < 3:
            if self.toks[k].fold in self.rules.street_after and k > i:
                self._add(i - 1, k + 1, "address")
                return
            k += 1

    def _known(self, word: str) -> bool:
        """A name the caller knows, inflected or possessive ("Олени", "Оленин")."""
        if stem(word) in self.known:
            return True
        return any(
            len(name) >= 3 and word.startswith(name) and len(word) - len(name) <= 3
            for name in self.known
        )

    def _names_from(self, index: int, kind: Kind) -> None:
        k = index
        while (
            k < len(self.toks)
            and self.toks[k].capitalised
            and k not in self.kept
            and k - index < self.rules.max_name_words
        ):
            k += 1
        if k > index:
            self._add(index, k, kind)

    def _not_names(self) -> set[int]:
        kept: set[int] = set()
        i = 0
        while i < len(self.folds):
            hit = self.rules.not_names.match_at(self.folds, i)
            if hit is None:
                i += 1
                continue
            kept.update(range(i, i + hit[1]))
            i += hit[1]
        return kept

    def _add(self, first: int, after: int, kind: Kind) -> None:
        self.found.append(Span(self.toks[first].start, self.toks[after - 1].end, kind))

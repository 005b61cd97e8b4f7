"""Text normalisation for farmers' messages: Ukrainian, Russian, surzhyk, English.

Everything here is a pure function over ``str``; tables and regexes are compiled
once at import. The pipeline is:

1. :func:`fold` - lowercase, NFC, drop apostrophes (``мʼята``, ``м'ята`` and
   ``мята`` become one word), fold letters that Ukrainian and Russian spell
   differently or that people drop while typing (``ё→е``, ``є→е``, ``э→е``,
   ``ы→и``, ``ї→і``, ``ґ→г``, ``ь``/``ъ`` removed).
2. :func:`tokenize` - words and numbers only; emoji and punctuation vanish.
   A word typed with Latin look-alikes inside Cyrillic (``привiт``) is repaired.
3. :func:`stem` - a light suffix stripper, so ``запиши``, ``запишіть``,
   ``записати``, ``записав``, ``запишите`` and ``записал`` share the stem ``запис``
   and ``spraying``/``sprayed``/``sprays`` share ``spray``.
4. :func:`within_one_edit` / :func:`prefix_within_one_edit` - typo tolerance
   (one insertion, deletion, substitution or adjacent transposition).

``і`` and ``и`` are deliberately *not* folded together: it would merge the
Ukrainian ``полів`` ("of the fields") with ``полив`` ("irrigation").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "NormalizedText",
    "capitalised",
    "clean_input",
    "extract_emoji",
    "fold",
    "has_phrase",
    "has_word",
    "is_number",
    "normalize",
    "prefix_within_one_edit",
    "stem",
    "tokenize",
    "within_one_edit",
]

#: Every character people type as an apostrophe (or that keyboards substitute).
APOSTROPHES = "'’ʼ`‘′´ʹ＇"

_FOLD_TABLE: dict[int, int | None] = {
    **{ord(ch): None for ch in APOSTROPHES},
    ord("ё"): ord("е"),
    ord("є"): ord("е"),
    ord("э"): ord("е"),
    ord("ы"): ord("и"),
    ord("ї"): ord("і"),
    ord("ґ"): ord("г"),
    ord("ь"): None,
    ord("ъ"): None,
    # Soft hyphen and zero-width characters hide inside copied text.
    0x00AD: None,
    0x200B: None,
    0x200C: None,
    0x200D: None,
    0x2060: None,
    0xFEFF: None,
}

#: Latin letters that look like Cyrillic ones; applied only inside mixed words.
_LOOKALIKES = str.maketrans("aceiopxyk", "асеіорхук")

# Numbers keep their decimal part ("1,5 л/га", "5.8 t/ha"); "20мм" splits into "20" "мм".
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")
_LATIN_RE = re.compile(r"[a-z]")
_CYRILLIC_RE = re.compile(r"[а-яіїєґ]")
_EMOJI_RE = re.compile(
    "[\U0001f000-\U0001f3fa\U0001f400-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]"
)


#: Control characters (C0 and C1) other than tab and newline: NUL is refused by
#: PostgreSQL's text type, the rest are invisible noise or terminal escapes. And lone
#: surrogates (JSON's "\ud800" decodes to one): no database can store them.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


#: Characters that show nothing: format characters (zero-width space, joiners, bidi
#: marks, the BOM, soft hyphen), combining marks with nothing to combine with,
#: separators; and the letters and symbols fonts draw blank (Hangul fillers,
#: the blank Braille pattern), which Python counts as letters.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
_BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(char: str) -> bool:
    return char not in _BLANK_FILLERS and unicodedata.category(char) not in _INVISIBLE_CATEGORIES


def clean_input(text: str) -> str:
    """Text as it may be stored and shown: control characters gone (a carriage return
    becomes a newline), surrounding whitespace trimmed. Whitespace of any kind (U+00A0,
    U+3000 ...) or invisible characters (U+200B, U+FEFF, U+3164 ...) that are all
    there is leave ``""``."""
    if _CONTROL_RE.search(text):
        text = _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.strip()
    # The first visible character ends the scan: one look for nearly every text.
    return text if any(map(_visible, text)) else ""


def capitalised(text: str) -> str:
    """``text`` with its first letter upper case and the rest as written: a crop or an
    operation named on its own («ясон» -> «Ясон», «коткування» -> «Коткування»)."""
    return text[:1].upper() + text[1:]


def fold(text: str) -> str:
    """Lowercase and fold spelling variants; keeps spacing and punctuation."""
    lowered = text.lower()
    if not lowered.isascii():
        lowered = unicodedata.normalize("NFC", lowered)
    return lowered.translate(_FOLD_TABLE)


def _repair_mixed(token: str) -> str:
    """``привiт`` typed with a Latin ``i`` becomes ``привіт``."""
    if token.isascii() or not _LATIN_RE.search(token) or not _CYRILLIC_RE.search(token):
        return token
    return token.translate(_LOOKALIKES)


def tokenize(text: str) -> tuple[str, ...]:
    """Folded word and number tokens; punctuation and emoji are separators."""
    folded = fold(text)
    tokens = _TOKEN_RE.findall(folded)
    if folded.isascii() or not _LATIN_RE.search(folded):
        return tuple(tokens)
    return tuple(_repair_mixed(tok) for tok in tokens)


def extract_emoji(text: str) -> tuple[str, ...]:
    """The emoji in ``text`` (skin tones and variation selectors dropped)."""
    return tuple(_EMOJI_RE.findall(text))


def is_number(token: str) -> bool:
    """A token that is a number: ``12``, ``1,5``, ``5.8``."""
    return _NUMBER_RE.fullmatch(token) is not None


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A message split into folded tokens plus the emoji it carried."""

    raw: str
    tokens: tuple[str, ...]
    emoji: tuple[str, ...]

    @property
    def word_count(self) -> int:
        return len(self.tokens)


def normalize(text: str) -> NormalizedText:
    return NormalizedText(raw=text, tokens=tokenize(text), emoji=extract_emoji(text))


# --------------------------------------------------------------------------- stemming

_MIN_STEM = 3


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Endings in folded spelling (no ь/ъ, є→е, ы→и, ї→і). Longest match wins.
_CYRILLIC_SUFFIXES = _words(
    """
    ировали ировала ировать ироват ировал ирова ируйте ируй
    ювати увати ували ювали увала ювала увало уйте уемо уете ують уют ував ював
    иват ивал ивали ати яти ити іти ути оти ете ите іте емо имо імо ймо йте
    али ала ало яли яла или ила ило іли іла ели ела ать ять ую юю уе уеш еш иш
    ат ят ит іт ет ют ут ти ав ив ів ал ял ил ел ли ла ло
    ування ювання уванням уванню ення енням енню енні ання анням анню анні іння
    яння ание ение ания ения анию ению анием ением ості остю ость ости ост ість істю
    іст ами ями ими іми ого его ому ему ах ях ам ям ов ев ей ий ій ой ая яя ое
    ее ие их іх ою ею ом ем им ім ия ія ию ію ии іі а я о е и і у ю й
    """
)
_CYR_BY_LEN: tuple[tuple[int, frozenset[str]], ...] = tuple(
    (n, frozenset(s for s in _CYRILLIC_SUFFIXES if len(s) == n))
    for n in sorted({len(s) for s in _CYRILLIC_SUFFIXES}, reverse=True)
)
#: Consonant alternation at the end of a verb stem: пиш-у / пис-ати, каж-у / каз-ати.
_ALTERNATION = {"ш": "с", "ж": "з"}

_EN_SUFFIXES = _words("ations ation ings ing ies ied ers er ed es ly s")
_EN_VOWELS = frozenset("aeiouy")


def _strip_longest(word: str) -> str:
    for length, suffixes in _CYR_BY_LEN:
        if len(word) - length >= _MIN_STEM and word[-length:] in suffixes:
            return word[:-length]
    return word


def _stem_cyrillic(word: str) -> str:
    if word.endswith("ся") and len(word) - 2 >= _MIN_STEM + 1:
        word = word[:-2]
    word = _strip_longest(word)
    last = word[-1:]
    if last in _ALTERNATION:
        word = word[:-1] + _ALTERNATION[last]
    return word


def _undouble(word: str) -> str:
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _EN_VOWELS | {"l", "s"}:
        return word[:-1]
    return word


def _stem_english(word: str) -> str:
    for suffix in _EN_SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < _MIN_STEM:
            continue
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            return word
        if suffix in ("ies", "ied"):
            return word[: -len(suffix)] + "y"
        if suffix in ("ations", "ation"):
            return word[: -len(suffix)] + "at"
        base = word[: -len(suffix)]
        if suffix in ("es",) and not base.endswith(("s", "x", "z", "ch", "sh")):
            base = word[:-1]
        return _undouble(base) if suffix in ("ing", "ed", "er", "ings", "ers") else base
    if word.endswith("e") and len(word) > 4:
        return word[:-1]
    return word


def stem(token: str) -> str:
    """A light stem of one folded token (digits and short words are returned as is)."""
    if len(token) <= _MIN_STEM or not token.isalpha():
        return token
    if token.isascii():
        return _stem_english(token)
    return _stem_cyrillic(token)


# --------------------------------------------------------------------------- typos


def within_one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by at most one edit (incl. a transposition)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la > lb:
        a, b, la, lb = b, a, lb, la
    i = 0
    while i < la and a[i] == b[i]:
        i += 1
    if la == lb:
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    return a[i:] == b[i + 1 :]


def prefix_within_one_edit(token: str, prefix: str) -> bool:
    """``token`` starts with ``prefix`` up to one typo strictly inside the prefix.

    The prefix's first and last letters must stay in place, so ``завтра`` does
    not pass for ``завтрак*`` and ``сплав`` not for ``сплан*``, while
    ``порівнняй`` passes for ``порівня*`` and ``запеши`` for ``запиш*``.
    """
    if token.startswith(prefix):
        return True
    n = len(prefix)
    if token[:1] != prefix[:1]:
        return False
    for m in (n, n - 1, n + 1):
        if m > len(token):
            continue
        head = token[:m]
        if head[-1] == prefix[-1] and within_one_edit(head, prefix):
            return True
    return False


# --------------------------------------------------------------------------- whole words


def has_word(text: str, word: str) -> bool:
    """Whole-word test on folded tokens: ``hi`` is not in ``this``, ``ок`` not in ``рок``."""
    target = tokenize(word)
    return len(target) == 1 and target[0] in tokenize(text)


def has_phrase(text: str, phrase: str) -> bool:
    """Consecutive whole words: ``план на`` is in ``план на завтра``."""
    words, target = tokenize(text), tokenize(phrase)
    if not target:
        return False
    span = len(target)
    return any(words[i : i + span] == target for i in range(len(words) - span + 1))

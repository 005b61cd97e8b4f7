"""Read one farm operation from a farmer's message, without an LLM.

"запиши полив 20 мм на Північному вчора", and the same in surzhyk, Russian or
English, comes down to a :class:`ParsedOperation`: what was (or will be) done,
where, to which crop, how much, with what, when, and whether it is done or planned.
Every word the parser knows is in ``pipeline/rules/operations.toml`` and
``pipeline/rules/dates.toml`` (term syntax: :mod:`pipeline.grammar`), loaded once into
:class:`OperationRules`; names of fields and crops come from the farm's
:class:`~pipeline.farm.dictionary.Dictionary`.

The message is read in passes over its tokens; each pass claims the tokens it
understood so that later passes do not read them again:

1. quantities (:mod:`.quantities`) ("1,5 л/га", "20мм", "45 ц/га" → 4.5 t/ha),
2. dates (:mod:`.dates`; 12.05, 03.06.2026, 2026-05-12, "12 травня", вчора, "через 2 дні",
   weekdays),
3. status markers (:mod:`.operations`) (запиши / заплануй / буде / вже ...),
4. fields (:mod:`.names`): numbered ("поле 3", "3-є поле", "на третьому полі", "на полях 2, 6 і 9"),
   then known names, then crops, then names that look like a field but are
   unknown ("на полі Гора"),
5. the operation (a strong word, else what a product implies, else a weak word),
6. unknown crops ("посіяли люпин") and products (hint words and brand names).

A message that asks something, asks for a report, or negates the operation
("ще не посіяли") is not an operation: :meth:`OperationParser.parse` returns None.
Ids are never invented: a name the dictionary does not know is reported in
``unknown_terms`` and its id stays None.
"""

from pipeline.farm.parsing.parser import (
    Mood,
    OperationParser,
    ParsedMessage,
    ParsedOperation,
    Status,
)
from pipeline.farm.parsing.rules import OperationRules

__all__ = [
    "Mood",
    "OperationParser",
    "OperationRules",
    "ParsedMessage",
    "ParsedOperation",
    "Status",
]

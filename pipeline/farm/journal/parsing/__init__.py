"""Read the farm operations of a farmer's message, without an LLM.

"Вчора на полі 3 дискували, а сьогодні посіяли горох 250 кг/га", and the like in
surzhyk, Russian or English, comes down to a :class:`ParsedMessage`: each operation
(a :class:`ParsedOperation`: what was or will be done, where, to which crop, with
what, at what rate, over what area, how much in total, what yield, when, done or
planned), and whether the message asks, negates or records. Every word the parser
knows is in ``pipeline/rules/operations.toml``, ``pipeline/rules/dates.toml`` and the
product catalogue ``pipeline/rules/products.toml`` (term syntax:
:mod:`pipeline.grammar`), loaded once into :class:`OperationRules`; names of fields
and crops come from the farm's :class:`~pipeline.farm.dictionary.Dictionary`.

The message is read in passes over its tokens (numbers said in words are read into
the tokens first); each pass claims the tokens it understood so that later passes do
not read them again:

1. quantities (:mod:`.quantities`): "1,5 л/га", "20мм", "45 ц/га" (4.5 t/ha), "200 кг
   аміачки на гектар", "по 100 кг";
2. numbered fields (:mod:`.names`): "поле 3", "3-є поле", "на полях 2, 6 і 9";
3. dates (:mod:`.dates`): 12.05, "12 травня", вчора, "через 2 дні", weekdays, "на
   наступному тижні";
4. status markers (:mod:`.operations`): запиши / заплануй / треба / вже ...;
5. the farm's known fields and crops, operation words, products (:mod:`.products`);
6. clauses and their mood (:mod:`.clauses`): asked, negated, called off, put off;
7. names nobody knows: products by their marks, fields, crops.

Clauses then become operations (:mod:`.assemble`, :mod:`.drafts`), each with its
own names, amounts and date; ``docs/journal.md`` tells the rules. Ids are never
invented: a name the dictionary does not know is reported in ``unknown_terms`` and
its id stays None.
"""

from pipeline.farm.journal.parsing.parser import (
    Mood,
    OperationParser,
    ParsedMessage,
    ParsedOperation,
    Status,
)
from pipeline.farm.journal.parsing.rules import OperationRules

__all__ = [
    "Mood",
    "OperationParser",
    "OperationRules",
    "ParsedMessage",
    "ParsedOperation",
    "Status",
]

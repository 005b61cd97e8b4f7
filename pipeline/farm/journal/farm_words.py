"""Everything a farm has named, as one dictionary the journal reads messages with."""

from __future__ import annotations

from db.repositories import farm as repo
from db.uow import Session
from pipeline.farm.dictionary import Dictionary, DictionaryEntry, Vocabulary

__all__ = ["farm_dictionary"]


async def farm_dictionary(session: Session, farm_id: str, vocabulary: Vocabulary) -> Dictionary:
    """Everything the farm has named: its fields and crops, approved terms, shared crops."""
    entries: list[DictionaryEntry] = []
    for field in await repo.fields(session, farm_id):
        entries.append(DictionaryEntry("field", field.field_id, field.name, ()))
    for crop in await repo.crops(session, farm_id):
        entries.append(DictionaryEntry("crop", crop.crop_id, crop.name, ()))
    for term in await repo.dictionary_terms(session, farm_id):
        entries.append(
            DictionaryEntry(term.kind, term.canonical_id, term.display, tuple(term.synonyms))  # type: ignore[arg-type]
        )
    return vocabulary.dictionary(entries)

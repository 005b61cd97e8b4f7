"""The farm journal: operations read from messages (`parsing`), a card's typed draft
(`draft`), the consent card (`card`), the journal itself (`service`) and the rows ✅
writes (`writing`), repeats (`duplicates`), field areas said in words (`field_areas`)
and the report button under a long list (`export`).
"""

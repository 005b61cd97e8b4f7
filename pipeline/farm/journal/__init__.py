"""The farm journal: operations read from messages (`parsing`), the consent card (`card`),
the journal itself (`service`), repeats (`duplicates`), field areas said in words
(`field_areas`) and the report button under a long list (`export`).
"""

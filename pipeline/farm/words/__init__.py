"""Reading a farmer's words: dates (`dates`, `datewords`, `numeric_dates`), periods,
numbers said in words, units and how names compare (`name_match`).
"""

"""Farm data read from messages: known names (dictionary) and operations (parsing)."""

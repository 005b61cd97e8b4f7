"""What operators see and change: their edits parsed and checked (`edits`), the cards of
profiles and farms (`cards`), the platform's status (`platform`, `status_text`).
"""

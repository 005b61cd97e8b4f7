"""Onboarding a new user: the steps (`flow`) and how a typed answer is read (`reading`)."""

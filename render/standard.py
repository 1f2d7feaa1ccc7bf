"""Placeholder: filled in with the hand-placed standard geography."""
SITES: dict = {}

"""Screens of the app; each owns its keys and its state."""

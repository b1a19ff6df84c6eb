"""Test-wide settings: Textual runs without animations so pilot tests and snapshots are deterministic."""

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"

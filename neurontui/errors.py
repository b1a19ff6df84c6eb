"""Errors a user can cause and fix: each carries one sentence for the CLI or a TUI notice."""

from __future__ import annotations

from neurontui.model.errors import TraceError

__all__ = ["TraceError", "UserError"]


class UserError(Exception):
    """A bad argument, a missing device or tool: printed as one sentence, exit code 2."""

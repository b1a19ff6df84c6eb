"""The one error type readers raise for a file that cannot be read as a trace."""

from __future__ import annotations


class TraceError(ValueError):
    """A trace that cannot be loaded; str() is one sentence naming the file and the problem."""

    def __init__(self, path: object, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

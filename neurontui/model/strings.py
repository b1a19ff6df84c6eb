"""Interned strings: events store int32 indices so millions of names cost one list."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from itertools import count

import numpy as np


class StringTable:
    """An append-only table of unique strings addressed by index."""

    __slots__ = ("_strings", "_index")

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self._strings: list[str] = []
        self._index: dict[str, int] = {}
        for s in strings:
            self.intern(s)

    def intern(self, s: str) -> int:
        idx = self._index.get(s)
        if idx is None:
            idx = self._index[s] = len(self._strings)
            self._strings.append(s)
        return idx

    def intern_many(self, values: Sequence[str]) -> np.ndarray:
        """Vectorised intern: hash-factorise once, then map the few unique values."""
        if len(values) == 0:
            return np.zeros(0, dtype=np.int32)
        seen: dict[str, int] = {}
        # setdefault in C hands out each distinct value's first position, in one pass.
        firsts = np.fromiter(map(seen.setdefault, values, count()), dtype=np.int64, count=len(values))
        mapping = np.zeros(len(values), dtype=np.int32)
        for value, first in seen.items():
            mapping[first] = self.intern(value if isinstance(value, str) else str(value))
        return mapping[firsts]

    def lookup(self, s: str) -> int | None:
        return self._index.get(s)

    def matching(self, predicate) -> np.ndarray:
        """Indices of the strings for which predicate(string) is true (for search)."""
        return np.fromiter((i for i, s in enumerate(self._strings) if predicate(s)), dtype=np.int32)

    def __getitem__(self, idx: int) -> str:
        return self._strings[idx]

    def __len__(self) -> int:
        return len(self._strings)

    def __iter__(self):
        return iter(self._strings)

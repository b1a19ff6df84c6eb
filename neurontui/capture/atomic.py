"""Write-then-rename helpers, so a reader never sees a half-written capture file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

PARTIAL_SUFFIX = ".partial"


def partial_path(path: Path) -> Path:
    """The temporary name a file or directory carries until it is complete."""
    return path.with_name(path.name + PARTIAL_SUFFIX)


def write_text_atomic(path: Path, text: str) -> None:
    """Write text under a temporary name, flush it to disk, then rename it into place."""
    tmp = partial_path(path)
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write a JSON document atomically, indented for people who open it."""
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n")

"""The layer rule of DESIGN.md, checked on the source: imports only point downwards."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "neurontui"

# layer -> project packages it may import (besides itself)
ALLOWED = {
    "model": set(),
    "formats": {"model"},
    "analysis": {"model"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(sub: str = "") -> list[Path]:
    return sorted((PACKAGE / sub).rglob("*.py"))


def test_only_the_tui_imports_textual():
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in _modules()
        if "tui" not in p.relative_to(PACKAGE).parts
        and any(n == "textual" or n.startswith("textual.") for n in _imports(p))
    ]
    assert offenders == []


def test_core_layers_import_only_downwards():
    offenders = []
    for layer, allowed in ALLOWED.items():
        for path in _modules(layer):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] != "neurontui" or len(parts) < 2:
                    continue
                target = parts[1]
                leaf_errors = target == "errors" and layer != "model"  # neurontui/errors.py imports model only
                if target != layer and target not in allowed and not leaf_errors:
                    offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_the_checker_sees_imports():
    """Guards the guard: the AST walk finds a known import."""
    assert "neurontui.model.trace" in _imports(PACKAGE / "formats" / "kineto.py")

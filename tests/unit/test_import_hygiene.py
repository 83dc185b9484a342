"""The core never imports Textual (or Rich): a fresh interpreter proves it (DESIGN 1)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib, pkgutil, sys
import brain_tui.core as core
for info in pkgutil.iter_modules(core.__path__):
    importlib.import_module(f"brain_tui.core.{info.name}")
import brain_tui.cli.main
import brain_tui.entry
import brain_tui.demo
leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(",".join(leaked))
"""


def test_core_and_cli_never_import_textual() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"textual/rich imported by the core or the CLI: {out}"


def test_the_check_would_see_textual() -> None:
    probe = CHECK.replace("import brain_tui.demo", "import brain_tui.demo\nimport brain_tui.tui.app")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "textual" in out

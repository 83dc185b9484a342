"""Where the tests' data lives."""

from __future__ import annotations

from pathlib import Path

#: A brain exactly as the original tooling left it (a copy of the project's reference fixture).
#: Tests copy it into tmp_path; never edit it in place.
LEGACY = Path(__file__).resolve().parent / "fixtures" / "legacy"

"""Signals imported from the legacy BRAIN-INDEX.md (SPEC 7) are written like every other timestamp the
product writes (SPEC 3: ISO 8601 with a UTC offset), read in the brain's timezone at the import."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import yaml

from tests.bsi import run_bsi

LNOW = "2026-03-16T22:00:00Z"


def test_imported_signals_carry_an_offset(legacy_git_brain: Path) -> None:
    run = run_bsi("index", brain=legacy_git_brain, now=LNOW)
    assert run.code == 0, run.err
    created = {path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))["created_at"]
               for path in sorted((legacy_git_brain / "signals").glob("*.yml"))}
    assert len(created) == 6
    for sig_id, text in created.items():
        assert isinstance(text, str) and datetime.fromisoformat(text).tzinfo is not None, (sig_id, text)
    # the same instants as before the import (the naive legacy time, in the brain's zone: UTC here)
    assert created["sig-20261129-155848-human_gate"] == "2026-11-29T15:58:48+00:00"
    assert created["sig-20260316-001"] == "2026-03-16T00:00:00+00:00"


def test_imported_signal_times_follow_the_brains_timezone(legacy_git_brain: Path) -> None:
    compose = legacy_git_brain / "brain-compose.yml"
    compose.write_text(compose.read_text(encoding="utf-8") + "\ntimezone: Europe/Paris\n", encoding="utf-8")
    run = run_bsi("index", brain=legacy_git_brain, now=LNOW)
    assert run.code == 0, run.err
    doc = yaml.safe_load((legacy_git_brain / "signals" / "sig-20261129-155848-human_gate.yml").read_text())
    assert doc["created_at"] == "2026-11-29T15:58:48+01:00"

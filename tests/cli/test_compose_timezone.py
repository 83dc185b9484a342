"""brain-compose.yml's `timezone:` (SPEC 3, 8, 12): a value that names no zone is ignored, said once, and never
makes BRAIN-INDEX.md follow the machine's `TZ`; a zone written with stray spaces or as `utc` is that zone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi

INDIA, UTC_ENV = clean_env(TZ="Asia/Kolkata"), clean_env(TZ="UTC")


def _index_after(brain: Path, env: dict[str, str]) -> tuple[bytes, str]:
    """Regenerate the index (no commit) in `env`; its bytes and what stderr said."""
    run = run_bsi("--no-commit", "index", brain=brain, env=env)
    assert run.code == 0, run.err
    return (brain / "BRAIN-INDEX.md").read_bytes(), run.err


@pytest.mark.parametrize("value", ["Europe/Pariss", "5", "[Europe/Paris]", "../../etc/passwd", "'Not a zone'"])
def test_a_timezone_that_names_no_zone_leaves_the_index_in_utc_on_every_machine(brain: Path, value: str) -> None:
    """Before: the unusable name fell back to the machine's zone for the display too, silently, so a laptop in
    India and a server in UTC each rewrote every time of the index (SPEC 8: byte-identical on every machine)."""
    ok(run_bsi("claim", "open", "--scope", "a.md", "--slug", "aa", brain=brain, now="2026-11-29T10:00:00Z"))
    (brain / "brain-compose.yml").write_text(f"timezone: {value}\n", encoding="utf-8")
    utc, said = _index_after(brain, UTC_ENV)
    india, _ = _index_after(brain, INDIA)
    assert utc == india
    assert "| sess-20261129-1000-aa | brain@" in utc.decode() and "| 2026-11-29 10:00 | 2026-11-29 12:00 |" in \
        utc.decode()
    (line,) = [x for x in said.splitlines() if "timezone" in x]
    assert "not a known zone" in line and "ignored" in line


@pytest.mark.parametrize("value", ["'Europe/Paris '", "' Europe/Paris'"])
def test_a_zone_name_with_stray_spaces_is_that_zone(brain: Path, value: str) -> None:
    ok(run_bsi("claim", "open", "--scope", "a.md", "--slug", "aa", brain=brain, now="2026-11-29T10:00:00Z"))
    (brain / "brain-compose.yml").write_text(f"timezone: {value}\n", encoding="utf-8")
    utc, said = _index_after(brain, UTC_ENV)
    assert _index_after(brain, INDIA)[0] == utc
    assert "| 2026-11-29 11:00 | 2026-11-29 13:00 |" in utc.decode()  # shown in Paris
    assert "timezone" not in said


@pytest.mark.parametrize("value", ["utc", "Utc", "'UTC '"])
def test_utc_in_any_case_is_utc(brain: Path, value: str) -> None:
    ok(run_bsi("claim", "open", "--scope", "a.md", "--slug", "aa", brain=brain, now="2026-11-29T10:00:00Z"))
    (brain / "brain-compose.yml").write_text(f"timezone: {value}\n", encoding="utf-8")
    utc, said = _index_after(brain, INDIA)
    assert "| 2026-11-29 10:00 | 2026-11-29 12:00 |" in utc.decode() and "timezone" not in said
    # and a naive legacy time is read in UTC, not in the machine's zone (SPEC 3: the brain's zone)
    shown = run_bsi("--json", "claim", "show", "sess-20261129-1000-aa", brain=brain, env=INDIA)
    assert shown.json()["opened_at"].endswith("+00:00")

"""A brain with no `timezone:` reads naive times in the machine's zone (SPEC 3): with that zone's offset on the date
of the time itself (daylight saving included), never the offset the real clock has today."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, clean_env

Bsi = Callable[..., Run]
PARIS = clean_env(TZ="Europe/Paris")
WINTER = "sess-20260115-1000-winter"
SUMMER = "sess-20260715-1000-summer"


def _naive_claim(root: Path, sess_id: str, opened_at: str, scope: str) -> None:
    (root / "claims" / f"{sess_id}.yml").write_text(
        f"sess_id: {sess_id}\nscope: {scope}\nstatus: open\nopened_at: \"{opened_at}\"\n", encoding="utf-8")


def test_a_naive_time_takes_the_machine_offset_of_its_own_date(brain: Path, bsi: Bsi) -> None:
    _naive_claim(brain, WINTER, "2026-01-15T10:00", "wiki/a.md")
    _naive_claim(brain, SUMMER, "2026-07-15T10:00", "wiki/b.md")
    for sess_id, opened in ((WINTER, "2026-01-15T10:00:00+01:00"), (SUMMER, "2026-07-15T10:00:00+02:00")):
        shown = bsi("--json", "claim", "show", sess_id, brain=brain, now="2026-07-15T09:00:00Z", env=PARIS)
        assert shown.code == 0, shown.err
        assert shown.json()["opened_at"] == opened


def test_a_session_id_names_the_machine_local_time_of_now(brain: Path, bsi: Bsi) -> None:
    for now, minute in (("2026-01-15T09:00:00Z", "sess-20260115-1000-"), ("2026-07-15T09:00:00Z",
                                                                            "sess-20260715-1100-")):
        opened = bsi("claim", "open", "--scope", f"wiki/{now[:10]}.md", brain=brain, now=now, env=PARIS)
        assert opened.code == 0, opened.err
        assert opened.out.strip().startswith(minute)

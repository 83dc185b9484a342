"""Tests of brain_tui.core.records.index: the generated BRAIN-INDEX.md block and legacy signal rows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain_tui.core.paths.scope import ScopeEntry
from brain_tui.core.paths.text_safety import placeholder
from brain_tui.core.records.index import (
    END,
    START,
    apply_block,
    escape_cell,
    render_block,
)
from brain_tui.core.records.index_legacy import parse_legacy_signal_rows
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal
from tests.paths import LEGACY

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=PARIS)
LEGACY_INDEX = LEGACY / "BRAIN-INDEX.md"


def make_claim(sess_id: str, **kw: Any) -> Claim:
    """A claim with sensible defaults; keyword arguments override fields."""
    fields: dict[str, Any] = {
        "sess_id": sess_id,
        "path": f"claims/{sess_id}.yml",
        "data": {},
        "scope": (),
        "scope_text": "agents/",
        "status": "open",
        "type": "satellite",
        "instance": "prod@desktop",
        "story": "",
        "opened_at": NOW - timedelta(hours=1),
        "expires_at": NOW + timedelta(hours=1),
        "closed_at": None,
        "parent": None,
        "satellite_type": None,
        "level": "leaf",
    }
    fields.update(kw)
    return Claim(**fields)


def make_signal(sig_id: str, **kw: Any) -> Signal:
    """A signal with sensible defaults; keyword arguments override fields."""
    fields: dict[str, Any] = {
        "sig_id": sig_id,
        "path": f"signals/{sig_id}.yml",
        "data": {},
        "sender": "sess-20261129-0930-bsi1",
        "to": "sess-20261129-0900-pilo",
        "type": "CHECKPOINT",
        "scope": "brain-engine/",
        "payload": "task — files — result",
        "state": "pending",
        "created_at": NOW - timedelta(minutes=30),
        "delivered_at": None,
    }
    fields.update(kw)
    return Signal(**fields)


def snap(
    claims: tuple[Claim, ...] = (), signals: tuple[Signal, ...] = (), now: datetime = NOW
) -> BrainSnapshot:
    """A snapshot of a brain in Paris time."""
    return BrainSnapshot(root="/brain", now=now, tz=PARIS, claims=claims, signals=signals)


def section(block: str, heading: str) -> list[str]:
    """Lines of one section of the block (after its heading, up to the next heading or END)."""
    lines = block.split("\n")
    start = lines.index(heading) + 1
    out = []
    for line in lines[start:]:
        if line.startswith("## ") or line == END:
            break
        out.append(line)
    return out


def table_rows(block: str, heading: str) -> list[str]:
    """Data rows (not header/separator) of one section."""
    rows = [line for line in section(block, heading) if line.startswith("|")]
    return rows[2:]


# --------------------------------------------------------------------------- render_block

EMPTY_BLOCK = """<!-- bsi:generated:start -->
## Claims actifs

| Session | Instance | Portée | Niveau | Ouvert le | Expire le | État |
|---|---|---|---|---|---|---|

*Aucun claim actif.*

## Claims stale — contrôle humain requis

| Session | Instance | Portée | Expiré le | Action requise |
|---|---|---|---|---|

*Aucun claim stale.*

## Signals — Bus inter-sessions

| ID | De | Pour | Type | Concerné | Payload | État |
|---|---|---|---|---|---|---|

*Aucun signal.*

## Historique — 30 derniers jours

| Session | Instance | Portée | Commits | Ouvert | Fermé | Statut |
|---|---|---|---|---|---|---|

*Aucun historique.*

<!-- bsi:generated:end -->"""


def test_empty_snapshot_exact_text() -> None:
    assert render_block(snap(), PARIS) == EMPTY_BLOCK


def test_block_starts_and_ends_with_markers_without_trailing_newline() -> None:
    block = render_block(snap((make_claim("sess-20261129-1015-aaaa"),)), PARIS)
    assert block.startswith(START + "\n")
    assert block.endswith("\n" + END)
    assert block.count(START) == 1 and block.count(END) == 1


def test_headings_in_order_with_exact_columns() -> None:
    block = render_block(snap(), UTC)
    headings = [line for line in block.split("\n") if line.startswith("## ")]
    assert headings == [
        "## Claims actifs",
        "## Claims stale — contrôle humain requis",
        "## Signals — Bus inter-sessions",
        "## Historique — 30 derniers jours",
    ]
    headers = [line for line in block.split("\n") if line.startswith("| ")]
    assert headers == [
        "| Session | Instance | Portée | Niveau | Ouvert le | Expire le | État |",
        "| Session | Instance | Portée | Expiré le | Action requise |",
        "| ID | De | Pour | Type | Concerné | Payload | État |",
        "| Session | Instance | Portée | Commits | Ouvert | Fermé | Statut |",
    ]


def test_non_empty_table_has_no_empty_line() -> None:
    claims = (make_claim("sess-20261129-1015-aaaa"),)
    block = render_block(snap(claims), PARIS)
    assert "*Aucun claim actif.*" not in block
    assert "*Aucun claim stale.*" in block
    assert "*Aucun signal.*" in block
    assert "*Aucun historique.*" in block


def test_active_row_fields_and_statuses() -> None:
    claims = (
        make_claim(
            "sess-20261129-1015-aaaa",
            opened_at=datetime(2026, 11, 29, 10, 15, tzinfo=PARIS),
            expires_at=datetime(2026, 11, 29, 12, 15, 42, tzinfo=PARIS),
        ),
        make_claim(
            "sess-20261129-1016-bbbb",
            status="waiting_human",
            opened_at=datetime(2026, 11, 29, 10, 16, tzinfo=PARIS),
            level="domain",
        ),
        make_claim(
            "sess-20261129-1017-pilo",
            status="paused",
            type="pilote",
            opened_at=datetime(2026, 11, 29, 10, 17, tzinfo=PARIS),
            instance="",
            expires_at=None,
        ),
        make_claim("sess-20261129-1018-stal", status="stale"),
        make_claim("sess-20261129-1019-clos", status="closed", closed_at=NOW),
    )
    rows = table_rows(render_block(snap(claims), PARIS), "## Claims actifs")
    assert rows == [
        "| sess-20261129-1015-aaaa | prod@desktop | agents/ | leaf | 2026-11-29 10:15 | 2026-11-29 12:15 "
        "| open |",
        "| sess-20261129-1016-bbbb | prod@desktop | agents/ | domain | 2026-11-29 10:16 | 2026-11-29 13:00 "
        "| waiting_human |",
        "| sess-20261129-1017-pilo | — | agents/ | pilote | 2026-11-29 10:17 | — | paused |",
    ]


def test_scope_falls_back_to_parsed_entries() -> None:
    entry = ScopeEntry("file", "todo/brain.md", "")
    claims = (make_claim("sess-20261129-1015-aaaa", scope_text="", scope=(entry,)),)
    rows = table_rows(render_block(snap(claims), PARIS), "## Claims actifs")
    assert f"| {entry} |" in rows[0]
    claims = (make_claim("sess-20261129-1015-aaaa", scope_text="", scope=()),)
    rows = table_rows(render_block(snap(claims), PARIS), "## Claims actifs")
    assert rows[0].startswith("| sess-20261129-1015-aaaa | prod@desktop | — |")


def test_stale_rows_name_release_command() -> None:
    claims = (
        make_claim(
            "sess-20261129-0800-dead",
            status="stale",
            expires_at=datetime(2026, 11, 29, 10, 0, tzinfo=PARIS),
        ),
    )
    rows = table_rows(render_block(snap(claims), PARIS), "## Claims stale — contrôle humain requis")
    assert rows == [
        "| sess-20261129-0800-dead | prod@desktop | agents/ | 2026-11-29 10:00 "
        "| bsi claim release sess-20261129-0800-dead --reason … |"
    ]


def test_signal_rows_skip_archived() -> None:
    signals = (
        make_signal("sig-20261129-101502-k3f9", created_at=datetime(2026, 11, 29, 10, 15, 2, tzinfo=PARIS)),
        make_signal("sig-20261129-101503-zzzz", state="delivered", scope="", payload=""),
        make_signal("sig-20261129-101504-arch", state="archived"),
    )
    rows = table_rows(render_block(snap(signals=signals), PARIS), "## Signals — Bus inter-sessions")
    assert rows == [
        "| sig-20261129-101502-k3f9 | sess-20261129-0930-bsi1 | sess-20261129-0900-pilo | CHECKPOINT "
        "| brain-engine/ | task — files — result | pending |",
        "| sig-20261129-101503-zzzz | sess-20261129-0930-bsi1 | sess-20261129-0900-pilo | CHECKPOINT "
        "| — | — | delivered |",
    ]


def test_claims_sorted_by_opening_then_id() -> None:
    t = datetime(2026, 11, 29, 9, 0, tzinfo=PARIS)
    claims = (
        make_claim("sess-c", opened_at=t + timedelta(minutes=5)),
        make_claim("sess-b", opened_at=t),
        make_claim("sess-a", opened_at=t.astimezone(UTC)),  # same instant, other zone
        make_claim("sess-z", opened_at=None),
    )
    rows = table_rows(render_block(snap(claims), PARIS), "## Claims actifs")
    assert [row.split(" | ")[0][2:] for row in rows] == ["sess-z", "sess-a", "sess-b", "sess-c"]


def test_signals_sorted_by_creation_then_id() -> None:
    t = datetime(2026, 11, 29, 9, 0, tzinfo=PARIS)
    signals = (
        make_signal("sig-3", created_at=t + timedelta(seconds=1)),
        make_signal("sig-2", created_at=t),
        make_signal("sig-1", created_at=t),
        make_signal("sig-0", created_at=None),
    )
    rows = table_rows(render_block(snap(signals=signals), PARIS), "## Signals — Bus inter-sessions")
    assert [row.split(" | ")[0][2:] for row in rows] == ["sig-0", "sig-1", "sig-2", "sig-3"]


def test_times_shown_in_display_zone_without_seconds() -> None:
    opened = datetime(2026, 11, 29, 9, 30, 59, tzinfo=timezone(timedelta(hours=1)))
    claims = (make_claim("sess-a", opened_at=opened, expires_at=None),)
    utc_rows = table_rows(render_block(snap(claims), UTC), "## Claims actifs")
    akl_rows = table_rows(render_block(snap(claims), ZoneInfo("Pacific/Auckland")), "## Claims actifs")
    assert "| 2026-11-29 08:30 |" in utc_rows[0]
    assert "| 2026-11-29 21:30 |" in akl_rows[0]


def test_naive_times_read_in_brain_zone() -> None:
    claims = (make_claim("sess-a", opened_at=datetime(2026, 3, 16, 20, 36), expires_at=None),)
    rows = table_rows(render_block(snap(claims), UTC), "## Claims actifs")
    assert "| 2026-03-16 19:36 |" in rows[0]


def test_cells_escape_pipes_newlines_and_controls() -> None:
    signals = (make_signal("sig-1", payload="a|b\nc\r\nd\re\x1b[31mred\x00\x7f\x9b end\tx\u2028y"),)
    rows = table_rows(render_block(snap(signals=signals), PARIS), "## Signals — Bus inter-sessions")
    assert len(rows) == 1
    assert "| a\\|b c d e[31mred end x y |" in rows[0]
    block = render_block(snap(signals=signals), PARIS)
    assert "\r" not in block and "\x1b" not in block and "\x00" not in block


def test_cells_cannot_forge_markers() -> None:
    signals = (make_signal("sig-1", payload=f"x {END} {START} y"),)
    block = render_block(snap(signals=signals), PARIS)
    assert block.count(START) == 1 and block.count(END) == 1
    assert apply_block(apply_block("intro\n", block), block) == apply_block("intro\n", block)


def test_escape_cell_edges() -> None:
    assert escape_cell(None) == "—"
    assert escape_cell("  ") == "—"
    assert escape_cell("\n") == "—"
    assert escape_cell(12) == "12"
    assert escape_cell(" a | b ") == "a \\| b"


def _escape_every_step(text: str) -> str:
    """escape_cell's rule, every replacement applied (no shortcut for text with nothing to replace)."""
    import re

    text = re.sub("(?:\r\n|[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029\t])", " ", text)
    text = re.sub("[\x00-\x1f\x7f-\x9f]", "", text)
    text = "".join(placeholder(ch) or ch for ch in text)  # bidi and invisible characters shown (SPEC 15)
    return text.replace("|", "\\|").replace("<!--", "<\\!--").strip() or "—"


_SPECIAL = st.sampled_from(["|", "<!--", "\u2028", "\x85", "\u3000", "\r\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8")) | _SPECIAL).map("".join))
def test_escape_cell_is_the_same_with_or_without_its_shortcut(text: str) -> None:
    assert escape_cell(text) == _escape_every_step(text)


def test_history_window_30_days() -> None:
    claims = (
        make_claim("sess-in", status="closed", closed_at=NOW - timedelta(days=29, hours=23)),
        make_claim("sess-edge", status="failed", closed_at=NOW - timedelta(days=30)),
        make_claim("sess-out", status="closed", closed_at=NOW - timedelta(days=30, minutes=1)),
        make_claim(
            "sess-opened-only",
            status="released",
            closed_at=None,
            opened_at=NOW - timedelta(days=2),
        ),
        make_claim(
            "sess-old-opened",
            status="released",
            closed_at=None,
            opened_at=NOW - timedelta(days=40),
        ),
        make_claim("sess-nodate", status="closed", closed_at=None, opened_at=None),
        make_claim("sess-open", status="open"),
        make_claim("sess-stale", status="stale"),
    )
    rows = table_rows(render_block(snap(claims), PARIS), "## Historique — 30 derniers jours")
    ids = sorted(row.split(" | ")[0][2:] for row in rows)
    assert ids == ["sess-edge", "sess-in", "sess-opened-only"]


def test_history_row_fields_and_commit() -> None:
    opened = datetime(2026, 11, 28, 9, 0, tzinfo=PARIS)
    closed = datetime(2026, 11, 28, 10, 5, tzinfo=PARIS)
    claims = (
        make_claim(
            "sess-a",
            status="closed",
            opened_at=opened,
            closed_at=closed,
            data={"result": {"status": "ok", "commit": "a1b2c3d"}},
        ),
        make_claim(
            "sess-b",
            status="failed",
            opened_at=opened + timedelta(minutes=1),
            closed_at=closed,
            data={"result": "weird"},
        ),
    )
    rows = table_rows(render_block(snap(claims), PARIS), "## Historique — 30 derniers jours")
    assert rows == [
        "| sess-a | prod@desktop | agents/ | a1b2c3d | 2026-11-28 09:00 | 2026-11-28 10:05 | closed |",
        "| sess-b | prod@desktop | agents/ | — | 2026-11-28 09:01 | 2026-11-28 10:05 | failed |",
    ]


def test_render_is_deterministic_across_input_order() -> None:
    claims = tuple(make_claim(f"sess-{i}", opened_at=NOW - timedelta(minutes=i)) for i in range(5))
    signals = tuple(make_signal(f"sig-{i}", created_at=NOW - timedelta(minutes=i)) for i in range(5))
    a = render_block(snap(claims, signals), PARIS)
    b = render_block(snap(claims[::-1], signals[::-1]), PARIS)
    assert a == b


_SUBPROCESS_SCRIPT = textwrap.dedent(
    """
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo
    from brain_tui.core.records.index import render_block
    from brain_tui.core.records.model import BrainSnapshot, Claim, Signal

    tz = ZoneInfo("Europe/Paris")
    now = datetime(2026, 11, 29, 12, 0, tzinfo=tz)
    def claim(i, status, **kw):
        f = dict(sess_id=f"sess-20261129-10{i:02d}-x{i}", path="claims/x.yml", data={}, scope=(),
                 scope_text="agents/é|x", status=status, type="satellite", instance="prod@desktop",
                 story="", opened_at=now - timedelta(hours=i), expires_at=now + timedelta(hours=1),
                 closed_at=None, parent=None, satellite_type=None, level="leaf")
        f.update(kw)
        return Claim(**f)
    claims = (
        claim(1, "open"), claim(2, "stale"), claim(3, "paused", opened_at=datetime(2026, 3, 16, 20, 36)),
        claim(4, "closed", closed_at=now - timedelta(days=3), data={"result": {"commit": "abc"}}),
    )
    signals = (
        Signal("sig-20260316-001", "signals/s.yml", {}, "prod@desktop", "prod@laptop", "HANDOFF",
               "todo/brain.md", "reprendre à ## Sprint — ok", "delivered",
               datetime(2026, 3, 16, 21, 0), None),
    )
    snap = BrainSnapshot(root="/b", now=now, tz=tz, claims=claims, signals=signals)
    import sys
    sys.stdout.buffer.write(render_block(snap, ZoneInfo("Europe/Paris")).encode("utf-8"))
    """
)


def _available_locales() -> list[str]:
    """C plus fr_FR.UTF-8 when the machine has it."""
    wanted = ["C", "C.UTF-8"]
    try:
        listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False).stdout
    except OSError:
        listed = ""
    names = {name.lower().replace("-", "") for name in listed.split()}
    if "fr_fr.utf8" in names:
        wanted.append("fr_FR.UTF-8")
    return wanted


def test_output_byte_identical_across_tz_and_locale() -> None:
    root = Path(__file__).resolve().parents[2]
    outputs = {}
    for tz_name in ("UTC", "Pacific/Auckland", "America/Los_Angeles"):
        for loc in _available_locales():
            env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
            env.update({"TZ": tz_name, "LC_ALL": loc, "LANG": loc, "PYTHONPATH": str(root)})
            proc = subprocess.run(
                [sys.executable, "-c", _SUBPROCESS_SCRIPT],
                capture_output=True,
                env=env,
                cwd=root,
                check=True,
            )
            outputs[(tz_name, loc)] = proc.stdout
    values = set(outputs.values())
    assert len(values) == 1, outputs
    text = values.pop().decode("utf-8")
    assert "2026-03-16 20:36" in text  # naive time read in the brain's zone, shown in Paris
    assert "agents/é\\|x" in text


# --------------------------------------------------------------------------- apply_block

BLOCK = render_block(snap(), PARIS)


def test_apply_block_creates_file() -> None:
    assert apply_block(None, BLOCK) == "# BRAIN-INDEX.md\n\n" + BLOCK + "\n"
    assert apply_block("", BLOCK) == "# BRAIN-INDEX.md\n\n" + BLOCK + "\n"


def test_apply_block_appends_when_markers_absent() -> None:
    assert apply_block("# Index\n\nnotes\n", BLOCK) == "# Index\n\nnotes\n\n" + BLOCK + "\n"


def test_apply_block_replaces_between_markers_keeping_outside() -> None:
    existing = f"# Head\n\nintro\n{START}\nold stuff\n| x |\n{END}\n\n## Footer\nkeep me\n"
    new = apply_block(existing, BLOCK)
    assert new == f"# Head\n\nintro\n{BLOCK}\n\n## Footer\nkeep me\n"
    assert "old stuff" not in new


def test_apply_block_collapses_several_pairs() -> None:
    existing = f"top\n{START}\na\n{END}\nmiddle\n{START}\nb\n{END}\nbottom\n"
    assert apply_block(existing, BLOCK) == f"top\n{BLOCK}\nbottom\n"


def test_apply_block_extra_end_without_start() -> None:
    existing = f"top\n{START}\na\n{END}\nstray\n{END}\nbottom\n"
    assert apply_block(existing, BLOCK) == f"top\n{BLOCK}\nbottom\n"


def test_apply_block_end_before_any_start_is_kept() -> None:
    existing = f"top\n{END}\nbottom\n"
    assert apply_block(existing, BLOCK) == f"top\n{END}\nbottom\n\n{BLOCK}\n"


def test_apply_block_start_without_end_replaces_to_eof() -> None:
    existing = f"top\n{START}\ntruncated"
    assert apply_block(existing, BLOCK) == f"top\n{BLOCK}"


def test_apply_block_idempotent_on_examples() -> None:
    other = render_block(snap((make_claim("sess-a"),)), PARIS)
    for existing in (
        None,
        "",
        "x",
        "# t\n",
        f"a{START}b{END}c",
        f"{END}{START}",
        f"{START}",
        f"{START}{END}{END}{START}",
        "line\r\nother\r\n",
    ):
        once = apply_block(existing, BLOCK)
        assert apply_block(once, BLOCK) == once
        # a new block replaces the old one in place
        assert apply_block(once, other) == apply_block(existing, other)


_pieces = st.sampled_from([START, END, "\n", "text", "## Signals", "| sig-1 | a | b | c | d | pending |"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_pieces, st.text(max_size=5)), max_size=12))
def test_apply_block_idempotent_property(parts: list[str]) -> None:
    existing = "".join(parts)
    once = apply_block(existing, BLOCK)
    assert apply_block(once, BLOCK) == once
    assert once.count(BLOCK) == 1


# --------------------------------------------------------------------------- legacy import


@pytest.fixture()
def legacy_copy(tmp_path: Path) -> Path:
    """A private copy of the legacy BRAIN-INDEX.md fixture."""
    if not LEGACY_INDEX.exists():
        pytest.skip("legacy fixture not available")
    target = tmp_path / "BRAIN-INDEX.md"
    shutil.copyfile(LEGACY_INDEX, target)
    return target


def test_legacy_fixture_gives_six_signals(legacy_copy: Path) -> None:
    rows = parse_legacy_signal_rows(legacy_copy.read_text(encoding="utf-8"))
    assert [r["sig_id"] for r in rows] == [
        "sig-20261129-155848-human_gate",
        "sig-20261129-155845-paused",
        "sig-20261129-155844-human_gate",
        "sig-20260316-001",
        "sig-20260316-002",
        "sig-20260316-003",
    ]
    assert rows[0] == {
        "sig_id": "sig-20261129-155848-human_gate",
        "from": "sess-20260316-2230-be-tests",
        "to": "",
        "type": "HUMAN_GATE",
        "scope": "",
        "payload": 'deploy "prod" ?',
        "state": "pending",
    }
    assert rows[1]["type"] == "PAUSED" and rows[1]["payload"] == "pause urgence"
    assert rows[2]["payload"] == "tests verts — deploy ?"
    assert rows[3] == {
        "sig_id": "sig-20260316-001",
        "from": "sess-20260316-2046-bsi-v3-1",
        "to": "sess-20260316-2036-pilote-be5-wrap",
        "type": "CHECKPOINT",
        "scope": "agents/satellite-boot.md",
        "payload": "BSI-v3-1 livré — agents/satellite-boot.md — ok",
        "state": "pending",
    }
    assert rows[4]["type"] == "BLOCKED_ON" and rows[4]["scope"] == "brain-engine/"
    assert rows[5] == {
        "sig_id": "sig-20260316-003",
        "from": "prod@desktop",
        "to": "prod@laptop",
        "type": "HANDOFF",
        "scope": "todo/brain.md",
        "payload": "reprendre todo/brain.md à ## Sprint BSI — contexte : handoffs/sess-20260316-2115.md",
        "state": "delivered",
    }


def test_legacy_fixture_with_generated_block_is_still_six(legacy_copy: Path) -> None:
    text = legacy_copy.read_text(encoding="utf-8")
    signals = (make_signal("sig-20261129-101502-k3f9"),)
    merged = apply_block(text, render_block(snap(signals=signals), PARIS))
    ids = [r["sig_id"] for r in parse_legacy_signal_rows(merged)]
    assert len(ids) == 6 and "sig-20261129-101502-k3f9" not in ids


def test_legacy_ignores_generated_block_and_other_sections() -> None:
    text = "\n".join(
        [
            "# BRAIN-INDEX.md",
            "| sig-outside-1 | a | b | INFO | x | pending |",
            "## Claims actifs",
            "| sig-wrong-section | a | b | INFO | x | pending |",
            "## Signals",
            "| sig-keep | a | b | INFO | x \\| y | Delivered |",
            START,
            "## Signals — Bus inter-sessions",
            "| sig-generated | a | b | INFO | s | p | pending |",
            END,
            "| sig-after-block | a | b | INFO | p | pending |",
            "## Other",
            "| sig-other | a | b | INFO | p | pending |",
        ]
    )
    rows = parse_legacy_signal_rows(text)
    assert [r["sig_id"] for r in rows] == ["sig-keep"]
    assert rows[0]["payload"] == "x | y"
    assert rows[0]["state"] == "delivered"


def test_legacy_cell_counts_states_and_empties() -> None:
    text = "\n".join(
        [
            "## Signals",
            "| ID | De | Pour | Type | Concerné | Payload | État |",
            "|----|----|------|------|----------|---------|------|",
            "| sig-7 | - |  | INFO | — | p7 | ARCHIVED |",
            "| sig-6 | a | b | INFO | p6 | weird-state |",
            "| sig-5 | a | b | INFO | p5 |",
            "| sig-8 | a | b | INFO | s | p | pending | extra |",
            "| not-a-sig | a | b | INFO | p | pending |",
            "| sig-nopipe | a | b | INFO | p | **pending**",
            "  | sig-indented | a | b | INFO | p | livré |",
        ]
    )
    rows = parse_legacy_signal_rows(text)
    assert [r["sig_id"] for r in rows] == ["sig-7", "sig-6", "sig-nopipe", "sig-indented"]
    assert rows[0] == {
        "sig_id": "sig-7",
        "from": "",
        "to": "",
        "type": "INFO",
        "scope": "",
        "payload": "p7",
        "state": "archived",
    }
    assert rows[1]["state"] == "pending" and rows[1]["scope"] == ""
    assert rows[2]["state"] == "pending"
    assert rows[3]["state"] == "delivered"


def test_legacy_reads_rendered_rows_round_trip() -> None:
    signals = (make_signal("sig-1", payload="a|b", scope="x\\y"),)
    block = render_block(snap(signals=signals), PARIS)
    # the same table outside the markers reads back (what the cockpit would import)
    table = block.replace(START, "").replace(END, "")
    rows = parse_legacy_signal_rows(table)
    assert rows == [
        {
            "sig_id": "sig-1",
            "from": "sess-20261129-0930-bsi1",
            "to": "sess-20261129-0900-pilo",
            "type": "CHECKPOINT",
            "scope": "x\\y",
            "payload": "a|b",
            "state": "pending",
        }
    ]


def test_legacy_empty_and_no_section() -> None:
    assert parse_legacy_signal_rows("") == []
    assert parse_legacy_signal_rows("# title\n| sig-1 | a | b | INFO | p | pending |\n") == []


def test_apply_block_drops_a_merge_conflict_that_fences_only_the_block() -> None:
    """Two regenerated indexes merged by git: the block is regenerated, and the fence lines go with it."""
    ours = f"{START}\n| a |\n{END}"
    theirs = f"{START}\n| b |\n{END}"
    existing = f"# Head\n\nintro\n<<<<<<< HEAD\n{ours}\n=======\n{theirs}\n>>>>>>> origin/main\n\n## Notes\nkeep\n"
    new = apply_block(existing, BLOCK)
    assert new == f"# Head\n\nintro\n{BLOCK}\n\n## Notes\nkeep\n"
    assert "<<<<<<<" not in new and ">>>>>>>" not in new and "=======" not in new
    at_top = f"<<<<<<< HEAD\n{ours}\n=======\n{theirs}\n>>>>>>> theirs\n"
    assert apply_block(at_top, BLOCK) == f"{BLOCK}\n"
    assert apply_block(new, BLOCK) == new


def test_apply_block_leaves_a_conflict_in_hand_written_text_to_the_human() -> None:
    existing = f"<<<<<<< HEAD\nmy intro\n=======\ntheir intro\n>>>>>>> x\n{START}\nold\n{END}\n"
    assert apply_block(existing, BLOCK) == f"<<<<<<< HEAD\nmy intro\n=======\ntheir intro\n>>>>>>> x\n{BLOCK}\n"
    between = f"<<<<<<< HEAD\n{START}\na\n{END}\nmy note\n=======\n{START}\nb\n{END}\n>>>>>>> x\n"
    assert apply_block(between, BLOCK) == f"<<<<<<< HEAD\n{BLOCK}\n>>>>>>> x\n"  # the fence stays as the hint
    diff3 = f"<<<<<<< HEAD\n{START}\na\n{END}\n||||||| base\n{START}\no\n{END}\n=======\n{START}\nb\n{END}\n>>>>>>> x\n"
    assert apply_block(diff3, BLOCK) == f"{BLOCK}\n"
    straddling = f"<<<<<<< HEAD\nmine\n{START}\na\n{END}\n=======\n{START}\nb\n{END}\ntheirs\n>>>>>>> x\n"
    assert apply_block(straddling, BLOCK) == f"<<<<<<< HEAD\nmine\n{BLOCK}\ntheirs\n>>>>>>> x\n"

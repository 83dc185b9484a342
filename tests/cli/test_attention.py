"""`bsi attention [--json]`: the queue the cockpit shows, ranked by what each item unblocks."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi

GATED = "sess-20261129-0830-api-tests"
SEARCH = "sess-20261129-0820-api-search"
STALE = "sess-20261129-0500-notes-wrap"
PILOT = "sess-20261129-0800-pilote-be7"


def test_json_lists_the_demo_queue_in_rank_order(demo_brain: Path) -> None:
    run = run_bsi("--json", "attention", brain=demo_brain)
    assert run.code == 0, run.err
    items = run.json()["items"]
    assert [(i["kind"], i["sess_id"]) for i in items] == [("gate", GATED), ("blocked", SEARCH), ("stale", STALE),
                                                          ("breath", PILOT)]
    assert items[-1]["unblocks"] == 0 and "inhaled 3 sources" in items[-1]["summary"]
    gate = items[0]
    assert gate["unblocks"] == 3 and gate["time_left_s"] == 30 * 60 and gate["warning"] is False
    assert set(gate) == {"kind", "sess_id", "sig_id", "since", "time_left_s", "unblocks", "warning", "summary",
                         "runway", "path"}
    assert gate["runway"] is None  # no transcript recorded for its session


def test_text_names_time_left_and_warns_under_15_minutes(demo_brain: Path) -> None:
    out = ok(run_bsi("attention", brain=demo_brain, now="2026-11-29T10:20:00Z"))
    first = out.splitlines()[1]
    assert GATED in first and "10m left !" in first


def test_an_empty_queue_says_so(brain: Path) -> None:
    run = run_bsi("attention", brain=brain)
    assert (run.code, run.out.strip()) == (0, "nothing waits for a human")
    assert run_bsi("--json", "attention", brain=brain).json() == {"items": []}


def test_a_claim_file_that_does_not_read_is_named_with_its_repair(brain: Path) -> None:
    (brain / "claims" / "sess-20261129-0850-broken.yml").write_text("status: [open\nscope: notes/\n")
    lines = ok(run_bsi("attention", brain=brain)).splitlines()
    assert len(lines) == 2 and lines[1].split()[1:3] == ["unreadable", "claims/sess-20261129-0850-broken.yml"]
    assert "does not read: bsi claim repair sess-20261129-0850-broken" in lines[1]


def test_a_claim_whose_status_bsi_does_not_know_carries_its_file_path(brain: Path) -> None:
    """Every `unreadable` item names its claim file in `--json`, the one whose status does not read too."""
    (brain / "claims" / "sess-20261129-0930-odd.yml").write_text(
        "sess_id: sess-20261129-0930-odd\nscope: wiki/\nopened_at: '2026-11-29T09:30:00Z'\nstatus: frozen\n")
    items = run_bsi("--json", "attention", brain=brain, now="2026-11-29T10:00:00Z").json()["items"]
    assert [(i["kind"], i["sess_id"], i["path"]) for i in items] == [
        ("unreadable", "sess-20261129-0930-odd", "claims/sess-20261129-0930-odd.yml")]
    assert "bsi gate abort sess-20261129-0930-odd" in items[0]["summary"]


def test_the_text_row_of_a_file_that_does_not_read_holds_its_reason_and_its_repair_whole(brain: Path) -> None:
    """The WHAT column was cut at 60 characters for every item: the reason, what the file holds and the repair
    command of a file named by its path were lost. Its text row now holds the whole summary `--json` gives."""
    name = "claims/a-claim-file-named-by-hand-after-a-merge.yml"
    (brain / "claims" / "a-claim-file-named-by-hand-after-a-merge.yml").write_text("status: [open\nscope: notes/\n")
    items = run_bsi("--json", "attention", brain=brain).json()["items"]
    assert [i["path"] for i in items] == [name]
    summary = items[0]["summary"]
    assert f"bsi claim repair {name}" in summary and "until repaired it holds notes/" in summary
    lines = ok(run_bsi("attention", brain=brain)).splitlines()
    assert len(lines) == 2 and lines[1].rstrip().endswith(summary), lines


def test_a_claim_whose_status_bsi_does_not_know_shows_its_abort_command_whole(brain: Path) -> None:
    (brain / "claims" / "sess-20261129-0930-odd.yml").write_text(
        "sess_id: sess-20261129-0930-odd\nscope: wiki/\nopened_at: '2026-11-29T09:30:00Z'\nstatus: frozen\n")
    out = ok(run_bsi("attention", brain=brain, now="2026-11-29T10:00:00Z"))
    assert "(`bsi gate abort sess-20261129-0930-odd REASON`)" in out, out


def test_an_ordinary_row_is_no_wider_than_before(demo_brain: Path) -> None:
    lines = ok(run_bsi("attention", brain=demo_brain)).splitlines()
    start = lines[0].index("WHAT")
    assert len(lines) > 2 and all(len(line[start:]) <= 60 for line in lines[1:]), lines


LOCK = "locks/notes%2Fa.md.yml"
SIGNAL = "signals/sig-20261129-101502-k3f9.yml"


def _unreadable(brain: Path) -> list[dict[str, object]]:
    items = run_bsi("--json", "attention", brain=brain).json()["items"]
    return [i for i in items if i["kind"] == "unreadable"]


def test_a_lock_file_that_does_not_read_waits_for_a_human_with_its_own_repair(brain: Path) -> None:
    """It keeps its file locked (`bsi lock acquire` refuses) until a human fixes or removes it: not a claim's
    repair, and nothing `bsi lock` offers mends it."""
    (brain / LOCK).write_text("file: [notes/a.md\n", encoding="utf-8")
    items = _unreadable(brain)
    assert [(i["sess_id"], i["sig_id"], i["path"], i["unblocks"]) for i in items] == [(None, None, LOCK, 1)]
    summary = str(items[0]["summary"])
    assert summary.startswith("lock file does not read: fix or remove it by hand (line 2: "), summary
    assert summary.endswith("until then it keeps notes/a.md locked"), summary
    assert "bsi claim repair" not in summary
    lines = ok(run_bsi("attention", brain=brain)).splitlines()
    assert len(lines) == 2 and lines[1].split()[1:3] == ["unreadable", LOCK], lines
    assert lines[1].rstrip().endswith(summary), lines


def test_a_folder_named_like_a_lock_file_waits_for_a_human(brain: Path) -> None:
    (brain / "locks" / "docs%2Fb.md.yml").mkdir()
    items = _unreadable(brain)
    assert [i["path"] for i in items] == ["locks/docs%2Fb.md.yml"]
    summary = str(items[0]["summary"])
    assert "a folder, not a file: move it away" in summary and "keeps docs/b.md locked" in summary, summary
    assert "bsi claim repair" not in summary


def test_a_legacy_lock_file_that_does_not_read_says_its_name_tells_no_file(brain: Path) -> None:
    (brain / "locks" / "old.lock").write_text("x: [\n", encoding="utf-8")
    items = _unreadable(brain)
    assert [i["path"] for i in items] == ["locks/old.lock"]
    assert "fix or remove it by hand" in str(items[0]["summary"]), items
    assert "its name does not tell which file it may lock" in str(items[0]["summary"]), items


def test_a_signal_file_that_does_not_read_waits_for_a_human(brain: Path) -> None:
    """It blocks nothing, but the message it holds (a gate request, a BLOCKED_ON) is seen by no one."""
    (brain / SIGNAL).write_text("sig_id: [x\n", encoding="utf-8")
    items = _unreadable(brain)
    assert [(i["sess_id"], i["sig_id"], i["path"]) for i in items] == [(None, None, SIGNAL)]
    summary = str(items[0]["summary"])
    assert summary.startswith("signal file does not read: fix or remove it by hand (line 2: "), summary
    assert "blocks nothing, but a message may be lost" in summary, summary
    assert "bsi claim repair" not in summary
    out = ok(run_bsi("attention", brain=brain))
    assert SIGNAL in out and "nothing waits for a human" not in out, out

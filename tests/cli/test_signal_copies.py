"""A signal file copied under another name inside `signals/` (a hand edit, a merge keeping both sides) carries the ID
`signals/<ID>.yml` carries: that file is the signal, the copy one corrupt row naming it (SPEC 7, 13), as a second
claim file carrying a session ID is (`duplicate of claims/<ID>.yml`). Before, `signal list` showed two rows of one ID,
`signal ack` delivered one file and the copy stayed pending for ever, in `bsi attention` too."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.bsi import ok, run_bsi

PILOT = "sess-20261129-0900-pilo"


def copied(brain: Path, sig_type: str = "INFO") -> str:
    """Send one signal to the pilot and copy its file as `signals/copy-<ID>.yml`; the signal's ID."""
    sig = ok(run_bsi("signal", "send", "--to", PILOT, "--type", sig_type, "--from", "sess-20261129-0930-bsi1",
                     "waiting on the schema", brain=brain))
    shutil.copy(brain / "signals" / f"{sig}.yml", brain / "signals" / f"copy-{sig}.yml")
    return sig


def test_json_list_gives_the_signal_once_and_the_copy_as_a_corrupt_row(brain: Path) -> None:
    sig = copied(brain)
    doc = run_bsi("--json", "signal", "list", brain=brain).json()
    assert [(s["sig_id"], s["path"]) for s in doc["signals"]] == [(sig, f"signals/{sig}.yml")]
    (row,) = doc["corrupt"]
    assert row["path"] == f"signals/copy-{sig}.yml"
    assert f"duplicate of signals/{sig}.yml" in row["reason"] and "remove" in row["reason"]


def test_text_list_gives_one_row_of_the_id(brain: Path) -> None:
    sig = copied(brain)
    lines = ok(run_bsi("signal", "list", brain=brain)).splitlines()
    assert sum(line.startswith(sig) for line in lines) == 1, lines
    (copy_row,) = [line for line in lines if f"copy-{sig}" in line]
    assert "corrupt" in copy_row and "duplicate" in copy_row


def test_ack_leaves_nothing_pending(brain: Path) -> None:
    sig = copied(brain)
    ok(run_bsi("signal", "ack", sig, brain=brain))
    pending = run_bsi("--json", "signal", "list", "--pending", brain=brain).json()
    assert pending["signals"] == []
    assert [c["path"] for c in pending["corrupt"]] == [f"signals/copy-{sig}.yml"]


def test_attention_lists_the_copy_as_an_unreadable_file_not_a_signal(brain: Path) -> None:
    sig = copied(brain, "BLOCKED_ON")
    ok(run_bsi("signal", "ack", sig, brain=brain))
    items = run_bsi("--json", "attention", brain=brain).json()["items"]
    assert [(i["kind"], i["sig_id"], i["path"]) for i in items] == [
        ("unreadable", None, f"signals/copy-{sig}.yml")], items
    assert f"duplicate of signals/{sig}.yml" in items[0]["summary"]
    assert "the signal is in the other file" in items[0]["summary"]  # nothing is lost: not "a message may be lost"
    assert "may be lost" not in items[0]["summary"]


def test_a_copy_of_an_archived_signal_is_a_corrupt_row(brain: Path) -> None:
    """The archived file is not read by a live listing: the copy is still a copy (its ID's own file exists)."""
    sig = ok(run_bsi("signal", "send", "--to", PILOT, "--type", "INFO", "old news", brain=brain))
    pending_copy = (brain / "signals" / f"{sig}.yml").read_text(encoding="utf-8")
    ok(run_bsi("signal", "ack", sig, brain=brain))
    ok(run_bsi("signal", "archive", brain=brain, now="2026-11-30T12:00:00Z"))
    (brain / "signals" / f"merged-{sig}.yml").write_text(pending_copy, encoding="utf-8")
    for flags in ((), ("--pending",)):
        doc = run_bsi("--json", "signal", "list", *flags, brain=brain, now="2026-11-30T13:00:00Z").json()
        assert doc["signals"] == [], flags
        assert [c["path"] for c in doc["corrupt"]] == [f"signals/merged-{sig}.yml"], flags


def test_a_file_whose_id_has_no_file_of_its_name_is_still_the_signal(brain: Path) -> None:
    """No `signals/<ID>.yml`: the file is read as today (a renamed file, a legacy name)."""
    sig = copied(brain)
    (brain / "signals" / f"{sig}.yml").unlink()
    doc = run_bsi("--json", "signal", "list", brain=brain).json()
    assert [(s["sig_id"], s["path"]) for s in doc["signals"]] == [(sig, f"signals/copy-{sig}.yml")]
    assert "corrupt" not in doc


def test_a_yaml_file_beside_the_yml_file_of_its_id_is_a_copy(brain: Path) -> None:
    """`signals/<ID>.yml` holds the ID before `signals/<ID>.yaml`, as claim files rank (`claim_file_rank`)."""
    sig = ok(run_bsi("signal", "send", "--to", PILOT, "--type", "INFO", "twice", brain=brain))
    shutil.copy(brain / "signals" / f"{sig}.yml", brain / "signals" / f"{sig}.yaml")
    doc = run_bsi("--json", "signal", "list", brain=brain).json()
    assert [s["path"] for s in doc["signals"]] == [f"signals/{sig}.yml"]
    assert [c["path"] for c in doc["corrupt"]] == [f"signals/{sig}.yaml"]
    (brain / "signals" / f"{sig}.yml").unlink()
    doc = run_bsi("--json", "signal", "list", brain=brain).json()
    assert [s["path"] for s in doc["signals"]] == [f"signals/{sig}.yaml"] and "corrupt" not in doc

"""A protocol file that is no regular file (a FIFO, a link to a device) or is endless is read bounded and
never waited on: the claim git holds still holds its scope, the rest of the brain reads as before (SPEC 13:
over 64 KiB is corrupt). Before, a FIFO hung every read and a link to /dev/zero ate the memory."""

from __future__ import annotations

import json
import os
import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.conftest import claim_file

#: The address space a read may take: reading /dev/zero to its end is a memory error long before it.
_MEMORY = 1_500_000_000


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY, _MEMORY))


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("spoil", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("command", [("claim", "list"), ("check-scope", "docs/x.md"), ("index",)])
def test_a_committed_claim_file_that_is_no_regular_file_reads_as_corrupt(
        brain: Path, spoil: Callable[[Path], None], command: tuple[str, ...]) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    spoil(claim_file(brain, holder))
    # a real process: a blocked open cannot be interrupted in this one, and its memory is bounded
    done = subprocess.run(bsi_command("--json", *command, brain=brain, now=NOW), capture_output=True, text=True,
                          timeout=30, env=clean_env(), cwd=brain, preexec_fn=_bounded, check=False)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 10), done
    if command[0] == "claim":  # the committed claim still holds its scope: as HEAD's copy, or as a corrupt row
        listed = json.loads(done.stdout)
        held = [c["sess_id"] for c in listed["claims"]] + [row["path"] for row in listed["corrupt"]]
        assert held and set(held) <= {holder, f"claims/{holder}.yml"}
    if command[0] == "check-scope":
        assert done.returncode == 10


def _deep(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.write_text("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("spoil", [_fifo, _zero, _deep], ids=["fifo", "dev-zero", "deep"])
def test_a_spoiled_hook_index_is_rebuilt_not_waited_on(brain: Path, spoil: Callable[[Path], None]) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    ok(run_bsi("preflight", "check", holder, "docs/a.md", brain=brain))
    index = brain / ".brain" / "hook-index.json"
    if not index.exists():
        index.write_text("{}")
    spoil(index)
    done = subprocess.run(bsi_command("--json", "preflight", "check", holder, "docs/a.md", brain=brain, now=NOW),
                          capture_output=True, text=True, timeout=30, env=clean_env(), cwd=brain,
                          preexec_fn=_bounded, check=False)
    assert done.returncode == 0 and "internal error" not in done.stderr, done


@pytest.mark.parametrize("spoil", [_fifo, _zero, _deep], ids=["fifo", "dev-zero", "deep"])
@pytest.mark.parametrize("state", ["closed-set.json", "closed-set-rows"])
def test_a_spoiled_closed_set_is_rebuilt_not_waited_on(brain: Path, spoil: Callable[[Path], None], state: str) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    ok(run_bsi("claim", "list", "--all", brain=brain))
    folder = brain / ".brain"
    files = [folder / "closed-set.json"] if state == "closed-set.json" else sorted(folder.glob("closed-set-*.txt"))
    assert files
    for path in files:
        spoil(path)
    done = subprocess.run(bsi_command("--json", "claim", "list", "--all", brain=brain, now=NOW), capture_output=True,
                          text=True, timeout=30, env=clean_env(), cwd=brain, preexec_fn=_bounded, check=False)
    assert done.returncode == 0 and "internal error" not in done.stderr, done
    assert [c["sess_id"] for c in json.loads(done.stdout)["claims"]] == [holder]


@pytest.mark.parametrize("spoil", [_fifo, _zero, _deep], ids=["fifo", "dev-zero", "deep"])
def test_a_spoiled_locks_head_listing_is_rebuilt_not_waited_on(brain: Path, spoil: Callable[[Path], None]) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    ok(run_bsi("lock", "acquire", "docs/a.md", holder, brain=brain))
    listing = brain / ".brain" / "locks-head.json"
    assert listing.exists()
    spoil(listing)
    done = subprocess.run(bsi_command("--json", "lock", "list", brain=brain, now=NOW), capture_output=True,
                          text=True, timeout=30, env=clean_env(), cwd=brain, preexec_fn=_bounded, check=False)
    assert done.returncode == 0 and "internal error" not in done.stderr, done


@pytest.mark.parametrize("spoil", [_fifo, _deep], ids=["fifo", "deep"])
def test_a_spoiled_agent_session_record_answers_the_hook_in_time(brain: Path, spoil: Callable[[Path], None]) -> None:
    agent = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"
    ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", agent, brain=brain))
    record = brain / ".brain" / "agents" / "sessions" / f"{agent}.json"
    assert record.exists()
    spoil(record)
    event = {"session_id": agent, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": "Write",
             "tool_input": {"file_path": str(brain / "docs" / "a.md"), "content": "x"}, "tool_use_id": "t"}
    done = subprocess.run(bsi_command("hook", "pre-tool-use", brain=brain, now=NOW), input=json.dumps(event),
                          capture_output=True, text=True, timeout=30, env=clean_env(CLAUDE_CODE_SESSION_ID=agent),
                          cwd=brain, preexec_fn=_bounded, check=False)
    assert done.returncode in (0, 2) and "internal error" not in done.stderr, done
    assert not done.stdout.strip() or isinstance(json.loads(done.stdout), dict)


@pytest.mark.parametrize("spoil", [_fifo, _zero], ids=["fifo", "dev-zero"])
def test_a_brain_index_that_is_no_regular_file_is_not_waited_on(brain: Path, spoil: Callable[[Path], None]) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    spoil(brain / "BRAIN-INDEX.md")
    done = subprocess.run(bsi_command("--json", "claim", "list", brain=brain, now=NOW), capture_output=True,
                          text=True, timeout=30, env=clean_env(), cwd=brain, preexec_fn=_bounded, check=False)
    assert done.returncode == 0 and "internal error" not in done.stderr, done
    assert [c["sess_id"] for c in json.loads(done.stdout)["claims"]] == [holder]


@pytest.mark.parametrize("command", [("index",), ("claim", "open", "--scope", "docs/", "--slug", "aaaa")])
def test_a_folder_where_the_index_goes_is_invalid_data_and_nothing_is_written(
        brain: Path, command: tuple[str, ...]) -> None:
    (brain / "BRAIN-INDEX.md").unlink()
    (brain / "BRAIN-INDEX.md").mkdir()
    (brain / "BRAIN-INDEX.md" / "notes.md").write_text("kept\n", encoding="utf-8")
    claims = sorted(p.name for p in (brain / "claims").iterdir())
    proc = run_bsi(*command, brain=brain)
    assert proc.code == 65, proc
    assert proc.err.count("\n") == 1 and "BRAIN-INDEX.md: it is a folder" in proc.err and "Traceback" not in proc.err
    assert sorted(p.name for p in (brain / "claims").iterdir()) == claims
    assert (brain / "BRAIN-INDEX.md" / "notes.md").read_text(encoding="utf-8") == "kept\n"


def _fifo_new(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _null(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/null")


@pytest.mark.parametrize("spoil", [_fifo_new, _null], ids=["fifo", "dev-null"])
def test_a_brain_lock_that_is_no_regular_file_refuses_the_write_in_one_line(
        brain: Path, spoil: Callable[[Path], None]) -> None:
    """`.brain/lock` a FIFO or a device: a write says so (65) and writes nothing; a read goes on. Before, the
    write ended in an internal error (70: the lock opened in append mode cannot seek)."""
    (brain / ".brain").mkdir(exist_ok=True)
    spoil(brain / ".brain" / "lock")
    claims = sorted(p.name for p in (brain / "claims").iterdir())
    done = subprocess.run(bsi_command("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain, now=NOW),
                          capture_output=True, text=True, timeout=30, env=clean_env(), cwd=brain, check=False)
    assert done.returncode == 65, done
    assert done.stderr.count("\n") == 1 and ".brain/lock: it is no regular file" in done.stderr, done.stderr
    assert sorted(p.name for p in (brain / "claims").iterdir()) == claims
    listed = subprocess.run(bsi_command("--json", "claim", "list", brain=brain, now=NOW), capture_output=True,
                            text=True, timeout=30, env=clean_env(), cwd=brain, check=False)
    assert listed.returncode == 0 and json.loads(listed.stdout)["claims"] == [], listed

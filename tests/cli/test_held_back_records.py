"""The record of pauses held back (`.brain/held-back.json`) against kills and forgeries (`records.held_back`).

A kill between the record and the end of the pause's journal entry leaves the record of a write that recovery rolls
back: it must go with it, or the first idle write tells of a pause lost that is in force. A record bsi did not
write (a hand, a program) must never make bsi commit what no pause wrote: a claim file's copy that lifts what HEAD
holds, the deletion of a claim, a folder; and no size of it stops every write.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tests.bsi import NOW, bsi_command, ok, run_bsi
from tests.cli.test_git_failures import bsi
from tests.cli.test_pause_while_git_stalled import _claim_status, _stall, _unstall
from tests.hooks.test_pre_tool_use import AGENT
from tests.reliability import forked
from tests.reliability.harness import git, make_remote, racer_env

RECORD = Path(".brain") / "held-back.json"


def _killed_after_the_record(argv: list[str]) -> int:
    """`bsi ARGV`, killed (-9) the moment the record of its held-back write is on disk."""
    from brain_tui.cli.main import main
    from brain_tui.core.records import held_back

    real = held_back.record

    def record(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)  # type: ignore[arg-type]
        os.kill(os.getpid(), signal.SIGKILL)

    held_back.record = record  # type: ignore[assignment]
    return main(argv)


def _forge(clone: Path, message: str, files: dict[str, str | None]) -> None:
    (clone / RECORD).parent.mkdir(exist_ok=True)
    (clone / RECORD).write_text(json.dumps({"writes": [{"message": message, "files": files}]}))


def test_a_kill_after_the_record_leaves_no_record_of_the_write_rolled_back(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "cut", "--agent-session", AGENT)).strip()
    _stall(a, "forged")
    argv = bsi_command("gate", "pause", sess, "stop", brain=a, now=NOW)[3:]
    run = forked.run_forked(lambda: _killed_after_the_record(argv), env=racer_env("tester"), cwd=a).wait()
    assert run.code == -9, run
    shown = json.loads(ok(bsi(a, "--json", "claim", "show", sess)))  # a read settles the killed write: rolled back
    assert shown["status"] == "open", shown
    assert not (a / RECORD).exists()  # the record went back with the files it named
    assert bsi(a, "gate", "pause", sess, "stop again").code == 0
    _unstall(a, "forged")
    res = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert res.code == 0, res.err
    assert "not committed:" not in res.err, res.err  # no pause is told lost: the one made is committed
    assert git(a, "log", "--format=%s", "-2").splitlines()[1] == f"bsi: gate PAUSED {sess}"
    assert _claim_status(git(a, "show", f"HEAD:claims/{sess}.yml")) == "paused"


def test_a_record_naming_a_claim_file_that_lifts_heads_pause_commits_nothing_of_it(tmp_path: Path) -> None:
    """A paused claim's file rewritten open in the work tree (not in force: a lift needs HEAD too) is never made
    HEAD's by a record naming its bytes."""
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "held", "--agent-session", AGENT)).strip()
    ok(bsi(a, "gate", "pause", sess, "stop"))
    rel = f"claims/{sess}.yml"
    lifted = [line for line in (a / rel).read_text().splitlines(keepends=True)
              if not line.startswith(("paused_by:", "paused_from:", "gate_history:", "  - "))]
    (a / rel).write_text("".join(lifted).replace("status: paused", "status: open"))
    _forge(a, f"bsi: gate PAUSED {sess}", {rel: git(a, "hash-object", rel).strip()})
    res = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert res.code == 0, res.err
    assert _claim_status(git(a, "show", f"HEAD:{rel}")) == "paused"
    assert json.loads(ok(bsi(a, "--json", "claim", "show", sess)))["status"] == "paused"
    assert "not committed" in res.err and rel in res.err, res.err
    assert not (a / RECORD).exists()


def test_a_record_naming_a_deleted_claim_or_a_folder_commits_neither(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "gone", "--agent-session", AGENT)).strip()
    (a / "claims" / f"{sess}.yml").unlink()
    (a / "claims" / "planted").mkdir()
    (a / "claims" / "planted" / "x.yml").write_text("status: open\n")
    _forge(a, "bsi: gate PAUSED forged", {f"claims/{sess}.yml": None, "claims/planted": None})
    res = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert res.code == 0, res.err
    assert git(a, "cat-file", "-t", f"HEAD:claims/{sess}.yml").strip() == "blob"  # the claim is still HEAD's
    assert "planted" not in git(a, "log", "--name-only", "--format=")
    assert "bsi: gate PAUSED forged" not in git(a, "log", "--format=%s")


def test_a_huge_record_holds_no_write_up(tmp_path: Path) -> None:
    """A record of a hundred thousand writes (no pause makes one) is settled in one pass, not write by write."""
    _, (a,) = make_remote(tmp_path, 1)
    (a / RECORD).parent.mkdir(exist_ok=True)
    writes = [{"message": f"bsi: gate PAUSED s{n}", "files": {f"claims/s{n}.yml": "0" * 40}} for n in range(100_000)]
    (a / RECORD).write_text(json.dumps({"writes": writes}))
    res = run_bsi("signal", "send", "--to", "pilote", "--type", "INFO", "hello", brain=a, env=racer_env("tester"),
                  timeout=60, process=True)  # a process: a hang is cut at the timeout
    assert res.code == 0, res.err
    assert not (a / RECORD).exists()
    assert git(a, "log", "--format=%s", "-1").startswith("bsi: signal")
    assert len(res.err.splitlines()) < 20 and "and 99990 more writes held back not committed" in res.err


def test_a_pause_undone_before_its_commit_is_told_to_the_human_not_to_an_agents_write(tmp_path: Path) -> None:
    """An agent's write that finds git idle commits what it can of a held-back pause; one a rebase's abort undid stays
    in the record, still in the queue, and the human's own next command tells its human. Before: the agent's write
    dropped it, its tool result alone said so, and the queue emptied: no human ever heard the pause was gone."""
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "undone", "--agent-session", AGENT)).strip()
    other = ok(bsi(a, "claim", "open", "--scope", "notes/", "--slug", "busy")).strip()
    _stall(a, "rebase")
    assert bsi(a, "gate", "pause", sess, "stop").code == 0
    git(a, "rebase", "--abort")
    git(a, "checkout", "-q", "main")
    git(a, "checkout", "--", "claims", "BRAIN-INDEX.md")  # the pause put back before its commit
    agent = bsi(a, "signal", "send", "--from", other, "--to", "pilote", "--type", "INFO", "hello",
                env={"CLAUDECODE": "1", "BSI_SESSION": other})
    assert agent.code == 0, agent.err
    assert "not committed" not in agent.err
    held = [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]
    assert [i["sess_id"] for i in held] == [sess], held
    human = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "again")
    assert human.code == 0 and "not committed" in human.err and "make it again" in human.err, human.err
    assert not [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]


def test_a_record_of_many_writes_is_told_in_a_few_queue_items(tmp_path: Path) -> None:
    """bsi's own record holds a few pauses; one written by hand or a program may hold any number: the queue lists ten
    and one line for the rest, never one item each."""
    _, (a,) = make_remote(tmp_path, 1)
    a.joinpath(".brain").mkdir(exist_ok=True)
    (a / ".brain" / "held-back.json").write_text(json.dumps(
        {"writes": [{"message": f"bsi: gate PAUSED x{n}", "files": {}} for n in range(500)]}))
    held = [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]
    assert len(held) == 11 and "490 more" in held[-1]["summary"], [i["summary"] for i in held][-2:]

"""The real Claude Code's shell (Bash) against the hook's shell checks and the OS sandbox (SPEC 21.3)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, clean_env, git, run_bsi
from tests.clock import wait_for
from tests.conftest import load_claim
from tests.e2e.client import Session
from tests.e2e.conftest import AGENT_MARKERS, demo_claim
from tests.e2e.fake_api import Meanwhile, Text, ToolUse, bash, result_text

#: The demo's pilot and one of its satellites, by their slugs (`demo_claim`).
PILOT = "pilote-be7"
SATELLITE = "api-search"
SATELLITE_FILE = "brain-engine/api/routes.py"


def test_an_open_satellites_shell_writes_inside_its_scope_and_never_into_claims(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    satellite = demo_claim(e2e_brain, SATELLITE)
    target = e2e_brain / SATELLITE_FILE
    claim = e2e_brain / "claims" / f"{satellite}.yml"
    before, claim_before = target.read_text(), claim.read_bytes()
    script = [
        bash(f"echo '# paginate' >> {SATELLITE_FILE}"),
        # A write the command line shows: the hook (and Claude Code's own deny rules) refuse it.
        bash(f"echo 'status: closed' >> claims/{satellite}.yml"),
        # One it cannot show (the path is made when the code runs): the OS sandbox that `bsi hooks install`
        # writes keeps claims/ read-only.
        bash(f"python3 -c \"open('cla' + 'ims/{satellite}.yml', 'a').write('status: closed')\""),
        Text("Noted."),
    ]

    run = run_claude(e2e_brain, "Add the pagination note, then mark your claim closed.", script,
                     env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    appended = run.api.result_of(0)
    assert not appended.get("is_error"), appended
    assert target.read_text() == before + "# paginate\n"
    redirected = run.api.result_of(1)
    assert redirected.get("is_error") is True, redirected
    fenced = run.api.result_of(2)
    assert fenced.get("is_error") is True and "Read-only file system" in result_text(fenced), fenced
    assert claim.read_bytes() == claim_before


def test_a_paused_satellites_shell_append_is_refused(
        e2e_brain: Path, run_claude: Callable[..., Session], human: Callable[..., str]) -> None:
    pilot = demo_claim(e2e_brain, PILOT)
    satellite = demo_claim(e2e_brain, SATELLITE)
    human(e2e_brain, "gate", "pause", pilot, "hold: schema review")
    assert load_claim(e2e_brain, satellite)["status"] == "paused"
    target = e2e_brain / SATELLITE_FILE
    before = target.read_bytes()
    script = [bash(f"echo '# paginate' >> {SATELLITE_FILE}"),
              ToolUse("Read", {"file_path": str(target)}),
              ToolUse("Edit", {"file_path": str(target), "old_string": "lifecycle: stable",
                               "new_string": "lifecycle: draft"}),
              Text("Stopped.")]

    run = run_claude(e2e_brain, "Add the pagination note.", script, env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    # The session-start hook told the model, before its first step, which claim it holds and that it is paused.
    assert f"BSI claim {satellite}: status paused" in run.api.agent_requests()[0].text
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    assert "paused" in result_text(refused) and satellite in result_text(refused), refused
    assert f"bsi gate resume {pilot}" in result_text(refused), refused
    # The edit tools are held the same way.
    edited = run.api.result_of(2)
    assert edited.get("is_error") is True and f"{satellite} is paused" in result_text(edited), edited
    assert target.read_bytes() == before


def test_no_shell_spelling_plants_a_git_hook_or_rewrites_the_git_config(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    satellite = demo_claim(e2e_brain, SATELLITE)
    # bsi's own git runs no program of the repository, but the pilot's `git commit` would. Spellings the hook
    # cannot read: Claude Code's sandbox keeps .git/hooks and .git/config read-only (its own mandatory fence).
    git = e2e_brain / ".git"
    config_before = (git / "config").read_bytes()
    hook = git / "hooks" / "post-commit"
    script = [
        bash("python3 -c \"p='.git/hooks/post-commit'; open(p, 'w').write('#!/bin/sh\\ntouch /tmp/owned\\n')\""),
        bash("python3 -c \"open('.git/config', 'a').write('[core]\\n\\tfsmonitor = touch /tmp/owned\\n')\""),
        bash("python3 -c \"import os; os.symlink('../x', '.git/hooks/pre-commit')\""),
        Text("Done."),
    ]

    run = run_claude(e2e_brain, "Speed up the commits.", script, env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    for step in range(3):
        refused = run.api.result_of(step)
        assert refused.get("is_error") is True and "Read-only file system" in result_text(refused), refused
    assert not hook.exists() and not (git / "hooks" / "pre-commit").is_symlink()
    assert (git / "config").read_bytes() == config_before


def test_a_satellites_shell_cannot_push_a_forged_close_to_a_remote_on_this_machine(
        e2e_brain: Path, run_claude: Callable[..., Session], tmp_path: Path) -> None:
    pilot = demo_claim(e2e_brain, PILOT)
    satellite = demo_claim(e2e_brain, SATELLITE)
    # A close of another claim made in git alone (the claim file untouched): bsi's own push refuses it (the push
    # guard); the agent's own `git push` to a remote on this machine is stopped by the sandbox (it cannot write
    # outside the brain), so the remote never holds it.
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "-C", str(e2e_brain), "remote", "add", "origin", str(remote)], check=True)
    subprocess.run(["git", "-C", str(e2e_brain), "push", "-q", "origin", "HEAD:refs/heads/main"], check=True)
    stage = (f"oid=$(sed 's/^status: .*/status: closed/' claims/{pilot}.yml | git hash-object -w --stdin)"
             " && git update-index --cacheinfo 100644,$oid,{path} && git commit -qm done")
    # Spelled out, the protocol file is read off the command line and refused; through a variable the hook
    # cannot see it, and the commit is made: the push is what must not carry it.
    script = [bash(stage.format(path=f"claims/{pilot}.yml")),
              bash(f"f=claims/{pilot}.yml; " + stage.format(path="$f")),
              bash("git push origin HEAD:refs/heads/main"), Text("Done.")]

    run = run_claude(e2e_brain, "Close your claim and publish it.", script, env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    spelled = run.api.result_of(0)
    assert spelled.get("is_error") is True and "protocol file" in result_text(spelled), spelled
    assert run.api.result_of(1).get("is_error") is not True, run.api.result_of(1)  # the commit is made
    pushed = run.api.result_of(2)
    assert pushed.get("is_error") is True and "remote rejected" in result_text(pushed), pushed
    remote_copy = subprocess.run(["git", "-C", str(remote), "show", f"main:claims/{pilot}.yml"],
                                 capture_output=True, text=True, check=True).stdout
    assert "status: closed" not in remote_copy and load_claim(e2e_brain, pilot)["status"] == "open"


def test_no_shell_spelling_rewrites_the_files_that_name_programs_run_outside_the_sandbox(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    satellite = demo_claim(e2e_brain, SATELLITE)
    # `.mcp.json`, `.gemini/settings.json` and `brain-compose.yml` choose what runs outside the agent's sandbox
    # (MCP servers, hooks, launch.command, notify.command). The hook refuses the spellings it reads; the fence
    # that `bsi hooks install` writes keeps them read-only to the ones it cannot (a program's own open()).
    compose = e2e_brain / "brain-compose.yml"
    before = compose.read_bytes()
    script = [
        bash("python3 -c \"open('brain-compose.yml', 'a').write('launch:\\n  command: touch /tmp/owned\\n')\""),
        bash("python3 -c \"open('.mcp.json', 'w').write('{}')\""),
        bash("python3 -c \"import os; os.makedirs('.gemini', exist_ok=True); "
             "open('.gemini/settings.json', 'w').write('{}')\""),
        # the environment Gemini CLI loads at start (its hooks' too): BSI_HOOKS=warn would make every denial a note
        bash("python3 -c \"open('.env', 'w').write('BSI_HOOKS=warn\\n')\""),
        # a skill, a command or a subagent may declare hooks, which Claude Code runs outside the sandbox
        bash("python3 -c \"open('.claude/skills/SKILL.md', 'w').write('x')\""),
        bash("python3 -c \"open('.claude/commands/x.md', 'w').write('x')\""),
        bash("python3 -c \"open('.claude/agents/x.md', 'w').write('x')\""),
        Text("Done."),
    ]

    run = run_claude(e2e_brain, "Tidy the settings.", script, env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    for step in range(7):
        refused = run.api.result_of(step)  # a path that is not there yet is fenced as one nothing may open
        assert refused.get("is_error") is True and any(
            fenced in result_text(refused) for fenced in ("Read-only file system", "Permission denied",
                                                          "Not a directory")), refused
    assert compose.read_bytes() == before
    assert not (e2e_brain / ".gemini" / "settings.json").exists()
    assert not (e2e_brain / ".env").exists()


def test_no_agents_shell_moves_history_back_past_a_humans_pause(
        e2e_brain: Path, run_claude: Callable[..., Session], human: Callable[..., str]) -> None:
    pilot = demo_claim(e2e_brain, PILOT)
    satellite = demo_claim(e2e_brain, SATELLITE)
    before = subprocess.run(["git", "-C", str(e2e_brain), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    human(e2e_brain, "gate", "pause", pilot, "hold: schema review")
    paused = subprocess.run(["git", "-C", str(e2e_brain), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    branch = subprocess.run(["git", "-C", str(e2e_brain), "symbolic-ref", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    # Another session on the machine, holding no claim, tries to give the paused satellite its scope back.
    script = [bash(f"git reset --hard {before}"), bash(f"git checkout -q -b unpaused {before}"),
              bash("git revert --no-edit HEAD"), ToolUse("Read", {"file_path": str(e2e_brain / ".git" / branch)}),
              ToolUse("Write", {"file_path": str(e2e_brain / ".git" / branch), "content": before + "\n"}),
              Text("Could not.")]

    run = run_claude(e2e_brain, "Undo the last commit.", script)

    assert run.code == 0, run.transcript()
    for step in (0, 1, 2, 4):
        refused = run.api.result_of(step)
        assert refused.get("is_error") is True, (step, refused)
    assert "protocol" in result_text(run.api.result_of(0)), run.api.result_of(0)
    assert "git's own record" in result_text(run.api.result_of(4)), run.api.result_of(4)
    head = subprocess.run(["git", "-C", str(e2e_brain), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert head == paused and load_claim(e2e_brain, satellite)["status"] == "paused"


def test_history_moved_back_by_a_program_the_hook_cannot_read_still_leaves_the_pause_in_force(
        e2e_brain: Path, run_claude: Callable[..., Session], human: Callable[..., str]) -> None:
    """The hook cannot read a program's own git calls (`python3 -c 'subprocess.run(["git", …])'`), and the sandbox
    leaves `.git` writable (satellites commit): HEAD can be moved back past a pause. The work tree's claim files are
    fenced, so they still hold the pause, and a lift needs both (`records/in_force.py`): the satellite stays held."""
    pilot = demo_claim(e2e_brain, PILOT)
    satellite = demo_claim(e2e_brain, SATELLITE)
    before = subprocess.run(["git", "-C", str(e2e_brain), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    human(e2e_brain, "gate", "pause", pilot, "hold: schema review")
    moves = [f"import subprocess; subprocess.run(['git', 'update-ref', 'HEAD', '{before}'])",
             f"import subprocess; subprocess.run(['git', 'reset', '-q', '--hard', '{before}'])"]
    stranger = run_claude(e2e_brain, "Undo the last commit.",
                          [bash(f'python3 -c "{move}"') for move in moves] + [Text("Done.")])
    assert stranger.code == 0, stranger.transcript()
    head = subprocess.run(["git", "-C", str(e2e_brain), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert head == before  # HEAD was moved: what git holds no longer has the pause
    assert load_claim(e2e_brain, satellite)["status"] == "paused"  # the fenced work tree still does

    target = e2e_brain / SATELLITE_FILE
    content = target.read_bytes()
    held = run_claude(e2e_brain, "Paginate the routes.",
                      [ToolUse("Read", {"file_path": str(target)}),
                       ToolUse("Write", {"file_path": str(target), "content": "x = 1\n"}), Text("Could not.")],
                      env={"BSI_SESSION": satellite})
    assert held.code == 0, held.transcript()
    refused = held.api.result_of(1)
    assert refused.get("is_error") is True and "paused" in result_text(refused), refused
    assert target.read_bytes() == content


#: A program the hook cannot read (its paths are made when it runs), started in the background before the pause:
#: it waits for the satellite's claim file to say paused, tries to put it back, and writes down what happened. (The
#: pause holds the agent's next tool calls; a program already running is not stopped by it.)
UNDO_PAUSE = """python3 - <<'PY'
import pathlib, subprocess, time
claim = pathlib.Path('cla' + 'ims') / '{claim}.yml'
opened, deadline, told = claim.read_text(), time.monotonic() + 40, []
while 'status: paused' not in claim.read_text() and time.monotonic() < deadline:
    time.sleep(0.05)
try:
    claim.write_text(opened)
    told.append('write: done')
except OSError as exc:
    told.append(f'write: {{exc}}')
put_back = subprocess.run(['git', 'checkout', 'HEAD', '--', str(claim)], capture_output=True, text=True)
told.append(f'checkout: {{put_back.returncode}} {{put_back.stderr.strip()}}')
pathlib.Path('{report}').write_text(chr(10).join(told) + chr(10))
PY"""


def test_a_pause_placed_while_an_agents_program_stalls_git_holds_at_once_and_is_committed_after(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    """An agent's program writes `.git/MERGE_HEAD`: git takes no commit, so every bsi write waits, but a human's
    pause is placed anyway (`records/held_back.py`): in the work tree at once, where the hook holds the agent and the
    sandbox keeps the agent's programs from undoing it, and committed by the first bsi write once git is idle."""
    pilot = demo_claim(e2e_brain, PILOT)
    satellite = demo_claim(e2e_brain, SATELLITE)
    target = e2e_brain / SATELLITE_FILE
    report = e2e_brain / "undo-report.txt"
    head = git(e2e_brain, "rev-parse", "HEAD").strip()
    seen: dict[str, object] = {}

    def human(*args: str) -> Run:  # a process of its own: the in-process runner would see the server's threads
        return run_bsi(*args, brain=e2e_brain, now=None, process=True,
                       env=clean_env(drop=AGENT_MARKERS, identity="Pilot"))

    def pause() -> None:
        seen["merging"] = (e2e_brain / ".git" / "MERGE_HEAD").is_file()
        seen["content"] = target.read_bytes()
        seen["pause"] = paused = human("gate", "pause", pilot, "hold: a merge is in progress")
        assert paused.code == 0, paused  # (else the agent's turn ends here, and this is what the test says)
        seen["head"] = git(e2e_brain, "rev-parse", "HEAD").strip()
        seen["status"] = load_claim(e2e_brain, satellite)["status"]

    def end_merge() -> None:
        seen["undo"] = wait_for(lambda: report.is_file() and report.read_text(), timeout=30,
                                what="the background program's report")
        seen["held"] = (e2e_brain / ".brain" / "held-back.json").is_file()
        git(e2e_brain, "merge", "--abort", env=clean_env(identity="Pilot"))
        seen["write"] = human("signal", "send", "--to", satellite, "--type", "INFO", "the merge is over")

    forge = ("python3 -c \"import subprocess; head = subprocess.run(['git', 'rev-parse', 'HEAD'], "
             "capture_output=True, text=True).stdout; open('.git/MERGE_HEAD', 'w').write(head)\"")
    script = [
        bash(forge),
        bash(f"echo '# while merging' >> {SATELLITE_FILE}"),  # git stalled alone holds no one
        ToolUse("Bash", {"command": UNDO_PAUSE.format(claim=satellite, report=report.name),
                         "description": "watch the claim", "run_in_background": True}),
        ToolUse("Read", {"file_path": str(target)}),  # (the client's own check: an Edit needs a fresh Read)
        Meanwhile(pause, ToolUse("Edit", {"file_path": str(target), "old_string": "lifecycle: stable",
                                          "new_string": "lifecycle: draft"})),
        bash(f"echo '# paginate' >> {SATELLITE_FILE}"),
        Meanwhile(end_merge, ToolUse("Write", {"file_path": str(target), "content": "x = 1\n"})),
        Text("Stopped."),
    ]

    run = run_claude(e2e_brain, "Merge the search branch, then paginate the routes.", script,
                     env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    # The sandbox lets the agent's program stall git (.git stays writable: satellites commit).
    assert run.api.result_of(0).get("is_error") is not True, run.api.result_of(0)
    assert run.api.result_of(1).get("is_error") is not True, run.api.result_of(1)
    content = seen["content"]
    assert seen["merging"] is True and isinstance(content, bytes) and b"# while merging" in content, content
    # The human's pause: exit 0, told on stderr it is not committed, nothing joined the merge.
    paused = seen["pause"]
    assert isinstance(paused, Run), paused
    assert "not committed yet" in paused.err and "in force in this work tree" in paused.err, paused.err
    assert seen["head"] == head and seen["status"] == "paused"
    # In force at once: the agent's edit tool and its shell are refused, and the file is as it was at the pause.
    edited = run.api.result_of(4)
    assert edited.get("is_error") is True and f"{satellite} is paused" in result_text(edited), edited
    shell = run.api.result_of(5)
    assert shell.get("is_error") is True and f"{satellite} is paused" in result_text(shell), shell
    assert f"bsi gate resume {pilot}" in result_text(shell), shell
    # The program the agent started before the pause could not take it back out of the work tree.
    undo = str(seen["undo"])
    assert "write: [Errno 30] Read-only file system" in undo and "checkout: 0" not in undo, undo
    assert undo.count("Read-only file system") == 2, undo
    assert seen["held"] is True
    # Once the human ended the merge, their next bsi write committed the pause first, under its own message.
    wrote = seen["write"]
    assert isinstance(wrote, Run) and wrote.code == 0, wrote
    subjects = git(e2e_brain, "log", "--format=%s", "-2").splitlines()
    assert subjects[0].startswith("bsi: signal ") and subjects[1] == f"bsi: gate PAUSED {pilot}", subjects
    assert "status: paused" in git(e2e_brain, "show", f"HEAD~1:claims/{satellite}.yml")
    assert git(e2e_brain, "status", "--porcelain", "--", "claims", "signals", "BRAIN-INDEX.md") == ""
    assert not (e2e_brain / ".brain" / "held-back.json").exists()
    # Committed, it holds the same way.
    written = run.api.result_of(6)
    assert written.get("is_error") is True and f"{satellite} is paused" in result_text(written), written
    assert target.read_bytes() == content
    assert load_claim(e2e_brain, satellite)["status"] == "paused"

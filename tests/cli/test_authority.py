"""Who may act (SPEC 21) through `bsi`: every spelling of a human's verb refuses in an agent's process (exit 77).

An agent is simulated by its environment markers (`clean_env(CLAUDECODE="1")`), and by a
real process chain: a program named `claude` (or `codex`) whose child runs `bsi`, with no
marker at all; the name of an ancestor is what is read.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from brain_tui.core.rules.authority import agent_ancestors
from tests.bsi import BSI, NOW, Run, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.conftest import load_claim, signal_docs, tree_bytes

ALICE = "11111111-aaaa-4aaa-8aaa-111111111111"
BOB = "22222222-bbbb-4bbb-8bbb-222222222222"

human_process = pytest.mark.skipif(bool(agent_ancestors()),
                                   reason="the suite runs under an agent process: no call of it is a human's")


def agent_env(session: str | None = ALICE, **extra: str) -> dict[str, str]:
    """The environment of Claude Code's Bash tool (plus `extra`)."""
    env = clean_env(CLAUDECODE="1", **extra)
    if session:
        env["CLAUDE_CODE_SESSION_ID"] = session
    return env


def opened(brain: Path, *args: str, env: dict[str, str] | None = None, now: str = NOW) -> str:
    return ok(run_bsi("claim", "open", *args, brain=brain, env=env, now=now))


@pytest.fixture
def gated(brain: Path) -> tuple[str, str]:
    """A pilot (the human's) and its satellite waiting at a gate it requested."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    leaf = opened(brain, "--scope", "be/x.py", "--parent", pilot, "--satellite-type", "code", "--slug", "leaf")
    ok(run_bsi("gate", "request", leaf, "deploy?", brain=brain))
    return pilot, leaf


def refused_human_only(run: Run, verb: str, target: str) -> None:
    assert run.code == 77, run
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"bsi: {verb} {target} is a human's decision"), run.err
    assert "`brain-tui`" in lines[0] and "in their own terminal" in lines[0]


# -- every spelling of a human's verb, inside an agent's environment -------------------------------------
def spellings(brain: Path, *args: str) -> list[list[str]]:
    """The command lines of the issue: `python -m`, `python -c run()`, the bsi script by its path."""
    flags = ["--brain", str(brain), "--now", NOW]
    code = f"import sys; from brain_tui.cli.main import run; sys.argv = ['bsi', *{[*flags, *args]!r}]; run()"
    lines = [[*BSI, *flags, *args], [sys.executable, "-c", code]]
    script = Path(sys.executable).with_name("bsi")
    if script.exists():
        lines.append([str(script), *flags, *args])
    return lines


@pytest.mark.parametrize("verb", ["approve", "reject", "abort"])
def test_a_gate_verb_refuses_in_every_spelling(brain: Path, gated: tuple[str, str], verb: str) -> None:
    _, leaf = gated
    before = tree_bytes(brain)
    for argv in spellings(brain, "gate", verb, leaf, "ok go"):
        proc = subprocess.run(argv, capture_output=True, text=True, env=agent_env(BSI_SESSION=leaf), cwd=brain,
                              check=False, timeout=60)
        refused_human_only(Run(proc.returncode, proc.stdout, proc.stderr), verb, leaf)
    assert tree_bytes(brain) == before and load_claim(brain, leaf)["status"] == "waiting_human"


# every marker is asked of `Brain` in tests/rules/test_agent_markers.py; `bsi` keeps one for the exit code
@pytest.mark.parametrize("marker", [{"BSI_SESSION": "sess-20261129-1000-leaf"}])
def test_each_agent_marker_refuses_a_pause(brain: Path, gated: tuple[str, str], marker: dict[str, str]) -> None:
    pilot, _ = gated
    run = run_bsi("gate", "pause", pilot, brain=brain, env=clean_env(**marker))
    refused_human_only(run, "pause", pilot)
    assert load_claim(brain, pilot)["status"] == "open"


def test_resume_and_release_refuse_in_an_agent(brain: Path, gated: tuple[str, str]) -> None:
    pilot, leaf = gated
    ok(run_bsi("gate", "pause", pilot, brain=brain))
    refused_human_only(run_bsi("gate", "resume", pilot, brain=brain, env=agent_env()), "resume", pilot)
    run = run_bsi("--json", "claim", "release", leaf, "--reason", "gone", brain=brain, env=agent_env(),
                  now="2026-11-29T20:00:00Z")
    assert run.code == 77 and run.json()["kind"] == "human_only" and run.json()["exit"] == 77
    assert f"`bsi claim release {leaf} --reason TEXT`" in run.err
    assert load_claim(brain, pilot)["status"] == "paused"


@human_process
def test_a_human_in_their_own_terminal_is_not_affected(brain: Path, gated: tuple[str, str]) -> None:
    _, leaf = gated
    assert ok(run_bsi("gate", "approve", leaf, "go", brain=brain)) == f"{leaf} open"


# -- an agent process among the ancestors, with no marker in the environment ----------------------------
def agent_program(folder: Path, name: str, *, shell: bool) -> Path:
    """A program called `name`: a shell script running its arguments as a child, or the interpreter itself."""
    folder.mkdir(exist_ok=True)
    path = folder / name
    if shell:
        path.write_text('#!/bin/sh\n"$@"\necho "agent exits $?" >&2\n', encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    else:
        path.symlink_to(sys.executable)
    return path


@pytest.mark.parametrize(("name", "shell"), [("claude", False), ("codex", True), ("gemini", True)])
def test_an_agent_ancestor_refuses_without_any_marker(brain: Path, gated: tuple[str, str], tmp_path: Path,
                                                      name: str, shell: bool) -> None:
    _, leaf = gated
    program = agent_program(tmp_path / "agents", name, shell=shell)
    bsi = [*BSI, "--brain", str(brain), "--now", NOW, "gate", "approve", leaf]
    inner = ["-c", f"import subprocess, sys; sys.exit(subprocess.run({bsi!r}).returncode)"]
    argv = [str(program), sys.executable, *inner] if shell else [str(program), *inner]
    env = clean_env()
    assert not any(key in env for key in ("CLAUDECODE", "BSI_SESSION", "CODEX_SANDBOX", "GEMINI_CLI"))
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=brain, check=False, timeout=60)
    assert proc.returncode == 77 or "agent exits 77" in proc.stderr, proc.stderr
    assert f"ancestor process {name} (pid " in proc.stderr
    assert load_claim(brain, leaf)["status"] == "waiting_human"


# -- product-only signals, ownership, delegation -----------------------------------------------------------
def test_an_agent_cannot_fake_a_gate_signal(brain: Path) -> None:
    done = opened(brain, "--scope", "old/", "--satellite-type", "search", env=agent_env())
    ok(run_bsi("claim", "close", done, "--status", "ok", brain=brain, env=agent_env()))
    mine = opened(brain, "--scope", "a/", env=agent_env())
    run = run_bsi("signal", "send", "--to", "human:ada", "--type", "HUMAN_GATE", "approve me", brain=brain,
                  env=agent_env())
    assert run.code == 77 and "cannot send HUMAN_GATE" in run.err, run
    assert not [s for s in signal_docs(brain) if s["type"] == "HUMAN_GATE"]
    assert ok(run_bsi("attention", brain=brain)) == "nothing waits for a human"
    sent = ok(run_bsi("signal", "send", "--to", "human:ada", "--type", "INFO", "done", brain=brain, env=agent_env()))
    assert [s["from"] for s in signal_docs(brain) if s["sig_id"] == sent] == [mine]  # --from defaults to its claim


def test_an_agents_bsi_acts_only_for_its_own_claims(brain: Path) -> None:
    theirs = opened(brain, "--scope", "b/", "--satellite-type", "search", env=agent_env(BOB))
    mine = opened(brain, "--scope", "a/", "--satellite-type", "search", env=agent_env(ALICE))
    before = tree_bytes(brain)
    for args in (["claim", "close", theirs, "--status", "ok"], ["claim", "renew", theirs],
                 ["gate", "request", theirs, "?"], ["lock", "acquire", "b/x.md", theirs],
                 ["preflight", "fail", theirs], ["preflight", "reset", theirs],
                 ["signal", "send", "--from", theirs, "--to", mine, "--type", "INFO", "x"]):
        run = run_bsi("--json", *args, brain=brain, env=agent_env(ALICE))
        assert run.code == 77, (args, run)
        assert f"held by {theirs} (agent session {BOB}" in run.err and run.json()["kind"] == "not_yours"
    assert tree_bytes(brain) == before
    assert ok(run_bsi("claim", "close", mine, "--status", "ok", brain=brain, env=agent_env(ALICE))) == f"{mine} closed"


def test_another_agent_cannot_join_a_claims_tree(brain: Path) -> None:
    parent = opened(brain, "--scope", "be/", "--type", "pilote", env=agent_env(ALICE))
    before = tree_bytes(brain)
    run = run_bsi("claim", "open", "--scope", "be/", "--parent", parent, brain=brain, env=agent_env(BOB))
    assert run.code == 77 and f"cannot open a child under {parent}: it is held by {parent}" in run.err, run
    assert tree_bytes(brain) == before
    assert opened(brain, "--scope", "be/x.py", "--parent", parent, env=agent_env(ALICE))


@human_process
def test_a_human_delegates_under_an_agents_claim(brain: Path) -> None:
    parent = opened(brain, "--scope", "be/", "--type", "pilote", env=agent_env(ALICE))
    assert opened(brain, "--scope", "be/y.py", "--parent", parent)
    assert "CLAUDECODE" not in os.environ  # the suite's own process is a human's (tests/agent_markers.py)


def test_an_agent_acknowledges_only_signals_to_its_own_claims(brain: Path) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote")
    mine = opened(brain, "--scope", "be/x.py", "--parent", pilot, env=agent_env(BSI_SESSION=pilot))
    blocked = ok(run_bsi("signal", "send", "--from", mine, "--to", pilot, "--type", "BLOCKED_ON", "need schema",
                         brain=brain, env=agent_env()))
    to_me = ok(run_bsi("signal", "send", "--from", pilot, "--to", mine, "--type", "INFO", "go", brain=brain))
    run = run_bsi("signal", "ack", blocked, brain=brain, env=agent_env())
    assert run.code == 77 and f"cannot acknowledge {blocked}: it is addressed to {pilot}, held by {pilot}" in run.err
    assert [s["state"] for s in signal_docs(brain) if s["sig_id"] == blocked] == ["pending"]
    assert "blocked: need schema" in ok(run_bsi("attention", brain=brain))  # still before the human
    assert run_bsi("signal", "ack", to_me, brain=brain, env=agent_env()).code == 0


def test_an_agent_launches_an_agent_only_for_its_own_claim(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text('{"launch": {"command": ["echo", "launched {sess_id}"], "tmux": false}}',
                                             encoding="utf-8")
    now = live_now()  # an agent's launch judges the claim at the machine's clock (a claim past its TTL is stale)
    theirs = opened(brain, "--scope", "b/", env=agent_env(BOB), now=now)
    parent = opened(brain, "--scope", "a/", "--type", "pilote", env=agent_env(ALICE), now=now)
    mine = opened(brain, "--scope", "a/x.py", "--parent", parent, "--agent-session", "", env=agent_env(ALICE), now=now)
    assert "agent_session" not in load_claim(brain, mine)  # for the agent it will launch
    env = agent_env(ALICE)
    env.pop("TMUX", None)
    run = run_bsi("launch", theirs, brain=brain, env=env, now=now)
    assert run.code == 77 and f"cannot launch an agent for {theirs}: it is held by {theirs}" in run.err, run
    assert "launched" not in run.out
    # a process: without tmux, `bsi launch` becomes the launch root of the agent (exec)
    assert ok(run_bsi("launch", mine, brain=brain, env=env, now=now, process=True)) == f"launched {mine}"


def test_a_codex_agent_binds_its_thread_and_acts_for_its_claim(brain: Path) -> None:
    codex = clean_env(CODEX_THREAD_ID="thread-7", CODEX_SANDBOX_NETWORK_DISABLED="1")
    now = live_now()  # an agent's renew judges the claim at the machine's clock
    mine = ok(run_bsi("claim", "open", "--scope", "a/", brain=brain, env=codex, now=now))
    assert load_claim(brain, mine)["agent_session"] == "thread-7"
    assert run_bsi("claim", "renew", mine, brain=brain, env=codex, now=now).code == 0
    assert run_bsi("claim", "renew", mine, brain=brain, env=clean_env(CODEX_THREAD_ID="thread-8"), now=now).code == 77


LAUNCHER = """
import os, sys
launcher = os.getpid()
if os.fork() == 0:
    while os.getppid() == launcher:  # no clock: spin until the launcher has exited and the child is adopted
        pass
    adopter = os.getppid()
    with open(f"/proc/{adopter}/comm") as handle:
        sys.stderr.write(f"adopted by {adopter} {handle.read().strip()}\\n")
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
os._exit(0)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_a_detached_bsi_whose_parent_exited_is_not_a_humans(brain: Path, gated: tuple[str, str]) -> None:
    _, leaf = gated
    read_end, write_end = os.pipe()
    argv = [*BSI[1:], "--brain", str(brain), "--now", NOW, "gate", "approve", leaf]
    subprocess.run([sys.executable, "-c", LAUNCHER, *argv], stderr=write_end, env=clean_env(), cwd=brain,
                   check=True, timeout=60)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):  # EOF once the detached bsi has exited
        chunks.append(chunk)
    os.close(read_end)
    err = b"".join(chunks).decode()
    adopter = err.splitlines()[0].split()
    if adopter[2] != "1" and adopter[3] != "systemd":
        pytest.skip(f"orphans are adopted here by a subreaper bsi does not know: {adopter[3]}")
    if adopter[2] == "1" and adopter[3] in ("sh", "bash", "dash", "zsh"):
        pytest.skip("pid 1 is a shell here: its children are a human's commands")
    assert "is a human's decision" in err and "orphaned process: its parent exited" in err, err
    assert load_claim(brain, leaf)["status"] == "waiting_human"


def test_an_agent_cannot_remove_or_rewrite_its_own_hooks_and_fence(brain: Path) -> None:
    agent = clean_env(CLAUDECODE="1")
    ok(run_bsi("hooks", "install", brain=brain))
    settings = (brain / ".claude" / "settings.json").read_bytes()
    for argv in (("hooks", "uninstall"), ("hooks", "install", "--no-sandbox"), ("mcp", "install", "--no-check")):
        refused = run_bsi(*argv, brain=brain, env=agent)
        assert refused.code == 77 and "human's decision" in refused.err and f"bsi {argv[0]} " in refused.err, argv
    assert (brain / ".claude" / "settings.json").read_bytes() == settings
    assert run_bsi("hooks", "status", brain=brain, env=agent).code == 0  # reading what is installed stays open


def test_an_agents_acknowledgement_is_signed_by_its_claim(brain: Path) -> None:
    """SPEC 7's `delivered_by` names who acknowledged: a session by its ID (SPEC 6.3's `by`), as the MCP tool
    `signal_ack` does, never the human's git identity the agent's shell happens to carry."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote")
    mine = opened(brain, "--scope", "be/x.py", "--parent", pilot, env=agent_env(BSI_SESSION=pilot))
    to_me = ok(run_bsi("signal", "send", "--from", pilot, "--to", f"{mine}@desktop", "--type", "INFO", "go",
                       brain=brain))
    ok(run_bsi("signal", "ack", to_me, brain=brain, env=agent_env()))
    (doc,) = [s for s in signal_docs(brain) if s["sig_id"] == to_me]
    assert (doc["state"], doc["delivered_by"]) == ("delivered", mine)

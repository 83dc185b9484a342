"""`bsi hook` started with stdin, stdout or stderr closed: still exit 0 or 2, never a traceback (SPEC 20.2).

A hook runner (or a wrapper between the agent and the hook) may start the hook with a standard stream closed
(`<&-`, `>&-`): Python then has no `sys.stdin` / `sys.stdout` / `sys.stderr` at all. A closed stdin is input
that cannot be read: `pre-tool-use` fails closed for a bound session, every other event goes on (`session-start`
always exits 0; `user-prompt-submit` and `stop` never block on it). A closed output stream loses only what
would have gone there: the exit code stays the decision (2 for a denial, which Claude Code reads with stderr),
and never 1 (read as "go ahead").
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, event

NON_BLOCKING = ("session-start", "post-tool-use", "user-prompt-submit", "stop", "session-end", "notification")


@pytest.fixture
def bound(brain: Path) -> tuple[Path, str]:
    """A brain with one claim on src/, bound to AGENT."""
    return brain, ok(run_bsi("claim", "open", "--scope", "src/", "--story", "api", "--agent-session", AGENT,
                             brain=brain))


def closed(brain: Path, name: str, fd: int, data: bytes = b"", **env: str) -> subprocess.CompletedProcess[bytes]:
    """Run `bsi --brain BRAIN hook NAME` as its own process with file descriptor `fd` closed."""
    def close() -> None:
        os.close(fd)

    with subprocess.Popen(bsi_command("hook", name, brain=brain, now=NOW), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(**env), cwd=brain,
                          preexec_fn=close) as proc:  # noqa: PLW1509 - only closes one descriptor
        out, err = proc.communicate(None if fd == 0 else data, timeout=60)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    text = done.stdout + done.stderr
    assert done.returncode in (0, 2), done
    assert b"Traceback" not in text and b"internal error" not in text, done
    return done


@pytest.mark.parametrize("name", NON_BLOCKING)
def test_a_closed_stdin_never_blocks_an_event_that_never_blocks(bound: tuple[Path, str], name: str) -> None:
    brain, sess = bound
    done = closed(brain, name, 0, BSI_SESSION=sess)
    assert done.returncode == 0, done
    assert b"stdin" in done.stderr and len(done.stderr.splitlines()) == 1, done


def test_a_closed_stdin_fails_closed_for_a_bound_write_and_goes_on_unbound(bound: tuple[Path, str]) -> None:
    brain, sess = bound
    done = closed(brain, "pre-tool-use", 0, BSI_SESSION=sess)
    assert done.returncode == 2, done
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "could not decide" in reason and f"bsi preflight check {sess}" in reason
    assert reason.encode() in done.stderr and len(done.stderr.splitlines()) == 1
    assert closed(brain, "pre-tool-use", 0).returncode == 0


def test_a_closed_stdout_keeps_the_denial_and_its_reason_on_stderr(bound: tuple[Path, str]) -> None:
    brain, _sess = bound
    outside = json.dumps(event(brain, "Edit", str(brain / "docs" / "a.md"))).encode()
    done = closed(brain, "pre-tool-use", 1, outside)
    assert done.returncode == 2, done
    assert b"scope violation" in done.stderr, done
    start = json.dumps({"session_id": AGENT, "cwd": str(brain), "hook_event_name": "SessionStart",
                        "source": "startup"}).encode()
    assert closed(brain, "session-start", 1, start).returncode == 0


def test_a_closed_stderr_keeps_the_denial_on_stdout(bound: tuple[Path, str]) -> None:
    brain, _sess = bound
    outside = json.dumps(event(brain, "Edit", str(brain / "docs" / "a.md"))).encode()
    done = closed(brain, "pre-tool-use", 2, outside)
    assert done.returncode == 2, done
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    inside = json.dumps(event(brain, "Edit", str(brain / "src" / "a.py"))).encode()
    assert closed(brain, "pre-tool-use", 2, inside).returncode == 0

"""The hook's own deadline (issue 18): below the installed timeout, a bound write not decided in time is denied."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.agent_settings import claude as settings
from brain_tui.core.brain import Brain
from brain_tui.hooks import main as hooks_main
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import event


def run_hook(brain: Path, payload: dict[str, Any], env: dict[str, str], **deadline: Any) -> tuple[int, str, str]:
    """`bsi hook pre-tool-use` in process, with the deadline given."""
    out, err = io.StringIO(), io.StringIO()
    code = hooks_main.run(["--brain", str(brain), "--now", NOW, "hook", "pre-tool-use"],
                          stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out, stderr=err, environ=env,
                          **deadline)
    return code, out.getvalue(), err.getvalue()


def test_the_deadline_is_below_the_installed_timeout() -> None:
    assert 0 < hooks_main.DEADLINE_S < settings.HOOK_TIMEOUT_S


def test_a_write_past_the_deadline_is_denied_when_bound(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    target = event(brain, "Edit", str(brain / "src" / "a.py"), session="nobody")
    late = {"started": time.monotonic() - hooks_main.DEADLINE_S - 1}
    code, out, err = run_hook(brain, target, clean_env(BSI_SESSION=sess), **late)
    assert code == 2 and "brain busy" in err and "retry" in err and f"bsi preflight check {sess}" in err
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # An unbound session's write, undecided, may land in a claimed scope (here sess's): denied as well.
    code, out, err = run_hook(brain, target, clean_env(), **late)
    assert code == 2 and "brain busy" in err and "bsi check-scope" in err
    read = {**target, "tool_name": "Read"}  # not a write: nothing to protect
    assert run_hook(brain, read, clean_env(), **late)[:2] == (0, "")
    assert run_hook(brain, target, clean_env(BSI_SESSION=sess))[0] == 0  # in time, the same write goes


def test_an_unbound_write_the_hook_could_not_decide_is_denied(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))

    def broken(self: Brain, *args: object) -> object:
        raise RuntimeError("a bug in the decision")

    monkeypatch.setattr(Brain, "decide_write", broken)
    edit = event(brain, "Edit", str(brain / "src" / "a.py"), session="nobody")
    code, out, err = run_hook(brain, edit, clean_env())
    assert code == 2 and "could not decide" in err and "internal error (RuntimeError)" in err
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    shell = {**edit, "tool_name": "Bash", "tool_input": {"command": "echo x > src/a.py"}}
    assert run_hook(brain, shell, clean_env())[0] == 2
    outside = event(brain, "Read", str(brain / "src" / "a.py"), session="nobody")
    assert run_hook(brain, outside, clean_env())[:2] == (0, "")  # not a write: goes on


def test_a_decision_that_hangs_is_cut_at_the_deadline(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    hung = threading.Event()

    def hang(self: Brain, *args: object) -> object:
        hung.wait(30)  # interrupted by the hook's alarm long before
        raise AssertionError("the deadline did not cut the decision")

    monkeypatch.setattr(Brain, "decide_write", hang)
    code, out, err = run_hook(brain, event(brain, "Edit", str(brain / "src" / "a.py")), clean_env(BSI_SESSION=sess),
                              started=time.monotonic(), deadline_s=0.5)
    assert code == 2 and "brain busy" in err and "deny" in out

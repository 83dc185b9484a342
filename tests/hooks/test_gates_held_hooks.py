"""`bsi hook pre-tool-use` never lets a write into a held claim's scope through, however the tool names it."""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from brain_tui.core.sessions import hook_index
from brain_tui.hooks import events
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.clock import HOOK_INDEX_CLOCKS, AheadTime
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook

STRANGER = "5a1c9e0d-2b3f-4c6d-8e7f-9a0b1c2d3e4f"


def _codex(brain: Path, patch: str, session: str = STRANGER) -> subprocess.CompletedProcess[str]:
    payload: dict[str, Any] = {"session_id": session, "cwd": str(brain), "hook_event_name": "PreToolUse",
                               "tool_name": "apply_patch", "tool_input": {"command": ["apply_patch", patch]}}
    run = run_bsi("hook", "pre-tool-use", "--agent", "codex", brain=brain, input=json.dumps(payload))
    done = subprocess.CompletedProcess(["bsi", "hook", "pre-tool-use", "--agent", "codex"], run.code, run.out, run.err)
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr
    return done


def test_a_patch_whose_first_file_is_unclaimed_still_meets_the_paused_holder_of_the_next(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "held", brain=brain))
    ok(run_bsi("gate", "pause", holder, "hold src/", brain=brain))
    patch = ("*** Begin Patch\n*** Add File: notes/todo.md\n+later\n*** Update File: src/a.py\n@@\n-a\n+b\n"
             "*** End Patch\n")
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(_codex(brain, patch), "src/a.py", holder)
    alone = _codex(brain, "*** Begin Patch\n*** Add File: notes/todo.md\n+later\n*** End Patch\n")
    assert alone.returncode == 0 and "without a claim" in alone.stdout


def test_a_pause_landing_while_the_hook_reads_the_brain_is_never_vouched_for_by_the_index(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))
    target = event(brain, "Edit", str(brain / "src" / "a.py"))
    read = Brain.snapshot

    def slow_read(self: Brain, *args: Any, **kwargs: Any) -> Any:
        """The hook's read of the brain, during which a human pauses the claim (a slow, loaded machine)."""
        snapshot = read(self, *args, **kwargs)
        monkeypatch.setattr(Brain, "snapshot", read)
        ok(run_bsi("gate", "pause", sess, "stop writing", brain=brain))
        # the index is built after the racy window of the read (the clock ahead stands for a slow read)
        for name in HOOK_INDEX_CLOCKS:
            module = importlib.import_module(name)
            monkeypatch.setattr(module, "time", AheadTime(hook_index.RACY_NS + 200_000_000))
        return snapshot

    monkeypatch.setattr(Brain, "snapshot", slow_read)
    ctx = events.HookContext("pre-tool-use", target, "claude", str(brain), NOW, clean_env())
    events.pre_tool_use(ctx)  # the answer it gives was decided on the read; the index it leaves must not be trusted
    assert (brain / HOOK_INDEX_FILE).exists()
    assert_denied(hook(brain, "pre-tool-use", target), "paused")


def test_every_path_a_tool_input_names_is_checked_not_only_the_first(brain: Path, tmp_path: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "nb/", "--slug", "held", brain=brain))
    ok(run_bsi("gate", "pause", holder, "hold the notebooks", brain=brain))
    payload = event(brain, "NotebookEdit", str(brain / "nb" / "a.ipynb"), session=STRANGER)
    payload["tool_input"]["file_path"] = str(tmp_path / "harmless.txt")  # outside the brain
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", payload), "nb/a.ipynb", holder)


def test_a_write_into_another_brain_meets_that_brains_holds(brain: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-brain"
    ok(run_bsi("init", str(other), brain=None))
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "held", brain=other))
    ok(run_bsi("gate", "pause", holder, "hold src/", brain=other))
    settle(brain)  # the hook index of the session's own brain is valid: the shortcut is asked first
    for target, words in ((other / "src" / "a.py", ("src/a.py", holder)),
                          (other / "claims" / f"{holder}.yml", ("protocol file",))):
        for _ in range(2):
            assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(target), session=STRANGER)), *words)
    assert hook(brain, "pre-tool-use", event(brain, "Write", str(tmp_path / "loose.txt"))).returncode == 0
    free = hook(brain, "pre-tool-use", event(brain, "Write", str(other / "docs" / "free.md")))
    assert (free.returncode, free.stdout) == (0, "")  # that brain's `warn` note is not this session's


def test_a_lone_surrogate_in_the_path_never_turns_a_held_write_into_an_internal_error(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "held", brain=brain))
    ok(run_bsi("gate", "pause", holder, "hold src/", brain=brain))
    # JSON may carry a lone UTF-16 surrogate; the agent's runtime writes U+FFFD in its place (src/a\ufffd.py).
    raw = json.dumps(event(brain, "Write", f"{brain}/src/a.py", session=STRANGER)).replace("a.py", "a\\ud800.py")
    for _ in range(2):
        assert_denied(hook(brain, "pre-tool-use", None, raw=raw.encode()), holder)


@pytest.mark.parametrize("indent", ["  ", "\t", "\u00a0", " \u3000"])
def test_an_indented_patch_header_is_read_as_codex_reads_it(brain: Path, indent: str) -> None:
    """Codex trims a hunk header's whitespace: `  *** Add File: X` writes X, for a bound session and an unbound one."""
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "held", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", AGENT, brain=brain))
    for target, words in (("claims/x.yml", ("protocol file",)), ("src/evil.py", (holder,))):
        patch = f"*** Begin Patch\n*** Add File: docs/n.md\n+e\n{indent}*** Add File: {target}\n+h\n*** End Patch\n"
        assert_denied(_codex(brain, patch, session=AGENT), target, *words)
        alone = f"*** Begin Patch\n{indent}*** Delete File: {target}\n*** End Patch\n"
        assert_denied(_codex(brain, alone), target, *words)


def test_a_held_claim_keeps_the_shell_refused_though_the_session_holds_an_open_one(brain: Path) -> None:
    # What a shell line writes it may not show (`python3 -c`), so a second open claim of the session does not
    # give the shell back while a human holds the first: neither the core's answer nor the hook index's.
    pilot = ok(run_bsi("claim", "open", "--scope", "be/", "--type", "pilote", "--slug", "pilot", brain=brain))
    leaf = ok(run_bsi("claim", "open", "--scope", "be/x.py", "--parent", pilot, "--satellite-type", "code",
                      "--agent-session", AGENT, brain=brain))
    done = ok(run_bsi("claim", "open", "--scope", "old/", "--agent-session", AGENT, brain=brain))
    ok(run_bsi("claim", "close", done, "--status", "ok", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "notes/", "--agent-session", AGENT, brain=brain))
    lines = ("python3 -c 'open(\"be/x.py\", \"w\").write(\"x\")'", "python3 fill.py", "ls")
    shells = [{"session_id": AGENT, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": line}} for line in lines]
    settle(brain)  # the hook index is valid: the shortcut answers first
    for shell in shells:
        assert hook(brain, "pre-tool-use", shell).returncode == 0  # nothing held: the sandbox's job
    for verb in (("gate", "pause", pilot, "hold"), ("gate", "resume", pilot), ("gate", "request", leaf, "ok?")):
        ok(run_bsi(*verb, brain=brain))
        if verb[1] == "resume":
            continue
        for shell in shells:
            assert_denied(hook(brain, "pre-tool-use", shell), leaf, "every shell command")  # the core's answer
        settle(brain)
        for shell in shells:  # the hook index's
            assert_denied(hook(brain, "pre-tool-use", shell), leaf, "every shell command")


def test_a_paused_leaf_s_file_is_not_written_through_its_session_s_domain(brain: Path) -> None:
    domain = ok(run_bsi("claim", "open", "--scope", "be/", "--level", "domain", "--slug", "dom",
                        "--agent-session", AGENT, brain=brain))
    leaf = ok(run_bsi("claim", "open", "--scope", "be/x.py", "--parent", domain, "--satellite-type", "code",
                      "--agent-session", AGENT, brain=brain))
    write = event(brain, "Write", str(brain / "be" / "x.py"))
    settle(brain)
    assert hook(brain, "pre-tool-use", write).returncode == 0
    ok(run_bsi("gate", "pause", leaf, "hold x.py", brain=brain))
    assert_denied(hook(brain, "pre-tool-use", write), leaf, "paused")  # the core's answer
    settle(brain)
    assert_denied(hook(brain, "pre-tool-use", write), leaf, "paused")  # the hook index's
    assert hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "be" / "y.py"))).returncode == 0

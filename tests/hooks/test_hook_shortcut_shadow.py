"""The hook's shortcut (`hooks.fast.decide`) as a whole is the core's conservative shadow.

On brains the claim state machine generates (`ClaimMachine`: trees, gates, pauses, aborts, closes, expiries), with
a settled hook index, every hook event the shortcut lets through (`fast.decide` not None) must be let through by
the core too: `events.pre_tool_use`, which builds the same `ShellCommand` or paths and the same `WriteSession` the
hook gives `Brain.decide_write` when the shortcut answers None, at the same instant. Events are edit tools' writes
(in and out of the scopes, protocol and program files, `..`, absolute, through links) and shell lines made of the
shell reader's own vocabulary (redirections, `cd`, a command handed to another process, git moves, inner shells,
substitutions, pipes into a shell, `eval`, `xargs`), for a session bound to claims of the tree (held by a pause or
a gate as the machine leaves them), one bound only by `$BSI_SESSION`, and one holding nothing.

tests/unit/test_hook_index_shadow.py checks the index's own answers; this checks the shortcut's use of them.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError, TransitionRefused
from brain_tui.core.paths.layout import HOOK_INDEX_FILE, SESSION_VARIABLE
from brain_tui.core.rules.write_request import WriteSession
from brain_tui.core.sessions import agents, hook_index
from brain_tui.hooks import events, fast, wire
from brain_tui.hooks.main import find_brain
from tests.clock import clock_ahead
from tests.unit.test_state_machine import ClaimMachine

AGENT = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"  # bound to claims of the tree by `bind`
STRANGER = "5a1c9e0d-2b3f-4c6d-8e7f-9a0b1c2d3e4f"  # holds no claim

#: Brain-relative paths: in, around and outside the tree's scopes, protocol and program files, other spellings.
RELS = ["a/x.md", "a/sub/f.md", "a/z.md", "A/X.md", "b/y.md", "b/q.md", "c.md", "d/e.md", "agents/k.md",
        "CLAUDE.md", "a", "a/sub", "claims/x.yml", "locks/a--x.md.lock", "signals/s.yml", "BRAIN-INDEX.md",
        ".brain/hook-index.json", ".brain/agents/sessions/x.json", "brain-compose.yml", ".git/config", ".git/HEAD",
        ".git/refs/heads/main", "a/.git", "a/sub/.git/config", "x/.GIT", ".claude/settings.json",
        ".claude/settings.local.json", ".gemini/settings.json", ".codex/config.toml", ".mcp.json",
        "la/x.md", "la/sub/f.md", "lout/x.md", "lclaims/x.yml", "a/../b/y.md", "a/../claims/x.yml",
        "../outside.md", "a/./x.md", "é/café.md", "e\u0301/cafe\u0301.md", "CLAIMS/x.yml", "Brain-Index.md",
        ".Brain/x", ".GIT/config", ".Claude/settings.json", "a/x.md/", "a/*.md", "b/y.md~", "lother/claims/x.yml",
        "lother/f.md", "lgit/config", "a/sub/../../c.md", "~/x.md", ".bashrc", "Makefile"]
#: Shell lines: `{p}`/`{q}` are paths, `{d}` a folder.
LINES = ["echo x > {p}", "echo x >> {p}", "printf x 2>{p}", "cat {q} > {p}", "cp {q} {p}", "mv {q} {p}",
         "rm -rf {d}", "rm {p}", "touch {p}", "sed -i s/a/b/ {p}", "echo x | tee {p}", "cd {d} && echo x > y.md",
         "cd {d}; touch {p}", "(cd {d}; touch x.md)", "mkdir -p {d}", "ln -s {q} {p}", "find {d} -delete",
         "tmux send-keys -t pilot 'touch {p}' Enter", "echo 'touch {p}' | at now", "ssh host 'touch {p}'",
         "screen -X stuff 'touch {p}'", "systemd-run touch {p}", "git mv {q} {p}", "git rm {p}",
         "git rm -r --cached {d}", "git add {p}", "git checkout -- {p}", "git restore {p}", "git stash",
         "git reset --hard", "git clean -fdx", "git -C {d} add .", "git init {d}", "git worktree add {d}",
         "sh -c 'echo x > {p}'", "bash -c \"touch {p}\"", "python3 -c 'open(\"{p}\", \"w\")'",
         "echo $(touch {p})", "x=$(cat {q}); echo $x > {p}", "echo 'touch {p}' | sh", "eval \"touch {p}\"",
         "echo {p} | xargs rm", "echo {p} | xargs -I % cp {q} %", "cat <<EOF > {p}\nx\nEOF", "exec > {p}",
         "ls {d}", "cat {p}", "grep -r x {d}", "true || touch {p}", "touch {p} &", "env X=1 touch {p}",
         "sudo touch {p}", "dd if={q} of={p}", "tar -xf t.tar -C {d}", "rsync {q} {p}", "perl -i -pe s/a/b/ {p}",
         "vim {p}", "bsi gate resume x", "for f in {p}; do touch $f; done", "y={p}; touch $y", "touch ~/x.md",
         "nohup sh -c 'touch {p}'", "bash", "python3", "echo x > /dev/null", "git commit -am x",
         "echo x &> {p}", "echo x >| {p}", "cat <<< x > {p}", "tee >(cat > {p})", "cp -t {d} {q}", "mv -t {d} {q}",
         "install -m 644 {q} {p}", "truncate -s0 {p}", "curl -o {p} u", "wget -O {p} u", "git apply x.patch",
         "patch -p1 < x.patch", "git stash pop", "git switch -c x", "git checkout {q}", "git update-ref HEAD x",
         "git config core.hooksPath {d}", "source {p}", ". {p}", "crontab {p}", "setsid touch {p}",
         "timeout 5 touch {p}", "find {d} -name x -exec rm {{}} +", "command touch {p}", "exec touch {p}",
         "trap 'touch {p}' EXIT", "f() {{ touch {p}; }}; f", "echo `touch {p}`", "touch ${{X:-{p}}}",
         "cd - && touch {p}", "pushd {d} && touch x.md", "cd {d}/.. && rm -r a", "ln -sf {q} {p}",
         "cp -r {d} {p}", "rsync -a --delete {d}/ {p}/", "kitty @ send-text 'touch {p}'",
         "wezterm cli send-text 'touch {p}'", "xdotool type 'touch {p}'", "tmux run-shell 'touch {p}'",
         "echo 'touch {p}' | batch", "docker run -v {d}:/w img touch /w/x", "script -c 'touch {p}'",
         "git -c core.hooksPath={d} commit -m x", "make -C {d}", "./{p}", "awk -i inplace 1 {p}",
         "unzip x.zip -d {d}", "git worktree add {d}/w", "git clone u {d}/c", "mkdir {d}/.git"]
SESSIONS = ["bound", "launched", "unbound"]
CWDS = ["", "a", "out"]
#: An edit tool's call: tool, brain-relative paths, given absolute, the event's cwd, the session.
EDIT_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace", "apply_patch"]
SHELL_TOOLS = ["Bash", "run_shell_command", "exec_command"]
JOINS = ["; ", " && ", " | ", "\n"]
EDITS = st.tuples(st.sampled_from(EDIT_TOOLS),
                  st.lists(st.sampled_from(RELS), min_size=1, max_size=2), st.booleans(), st.sampled_from(CWDS),
                  st.sampled_from(SESSIONS))
#: A shell call: one or two commands (template, two paths), how they are joined, the event's cwd, the session.
SHELLS = st.tuples(st.sampled_from(SHELL_TOOLS),
                   st.lists(st.tuples(st.sampled_from(LINES), st.sampled_from(RELS), st.sampled_from(RELS)),
                            min_size=1, max_size=2),
                   st.sampled_from(JOINS), st.sampled_from(CWDS), st.sampled_from(SESSIONS))



def _corpus(size: int) -> list[tuple[Any, ...]]:
    """Calls made of the same vocabulary, fixed (a seeded draw): the invariant asks a few of them after every step,
    so every brain the machine reaches meets them, whatever rules it happened to draw."""
    pick = random.Random(20261207)
    calls: list[tuple[Any, ...]] = []
    for n in range(size):
        cwd, session = pick.choice(CWDS), pick.choice(SESSIONS)
        if n % 2:
            parts = [(pick.choice(LINES), pick.choice(RELS), pick.choice(RELS)) for _ in range(pick.choice([1, 1, 2]))]
            calls.append((pick.choice(SHELL_TOOLS), parts, pick.choice(JOINS), cwd, session))
        else:
            calls.append((pick.choice(EDIT_TOOLS), [pick.choice(RELS)], pick.random() < 0.3, cwd, session))
    return calls


CORPUS = _corpus(600)
PER_STEP = 4


class ShortcutShadowMachine(ClaimMachine):
    """The claim machine, with bindings, links and unclaimed-write modes, asking the shortcut and the core."""

    def __init__(self) -> None:
        super().__init__()
        self.outside = Path(tempfile.mkdtemp(prefix="bsi-sm-out-"))
        self.bound_to: list[str] = []
        self.named = True
        self.asked = 0

    def teardown(self) -> None:
        shutil.rmtree(self.outside, ignore_errors=True)
        super().teardown()

    @initialize(git=st.booleans(), start=st.integers(0, len(CORPUS) - 1))
    def links(self, git: bool, start: int) -> None:
        """Links of the brain: to a claimed folder, to a protocol folder, to another brain and out of the brain; the
        brain a git repository or not (its `.git` is then git's own, not one made in the brain); where in the
        corpus this example's calls start (drawn: a failing example replays the same calls)."""
        self.asked = start
        if git:
            subprocess.run(["git", "init", "-q", "-b", "main", str(self.root)], check=True, capture_output=True)
        (self.root / "a" / "sub").mkdir(parents=True, exist_ok=True)
        # sections S1 and S2 (claims of the tree may hold `a/x.md#S1`): the core lets an edit of `a` in S1 go
        (self.root / "a" / "x.md").write_text("## S1\na\n\n## S2\nc\n")
        (self.root / "la").symlink_to(self.root / "a")
        (self.root / "lclaims").symlink_to(self.root / "claims")
        (self.root / "lout").symlink_to(self.outside)
        other = self.outside / "other"
        for name in ("claims", "signals", "locks", "breath"):
            (other / name).mkdir(parents=True)
        (self.root / "lother").symlink_to(other)
        (self.outside / "gitdir").mkdir()
        (self.root / "lgit").symlink_to(self.outside / "gitdir")

    @rule(index=st.integers(0, 1000))
    def bind(self, index: int) -> None:
        """The agent session holds one more claim of the tree (the hook's binding record)."""
        sess = self.pick(index)
        self.step = ("bind", sess)
        agents.record_binding(self.root, sess, AGENT, self.now, process="")
        self.bound_to.append(sess)

    @rule()
    def bind_a_section_holder(self) -> None:
        """The agent session holds the tree's claim on a section of a/x.md (leaf1: `a/x.md#S1`), when one is still
        there: its writes of a/x.md are then the core's to read (`section_writes`), never the shortcut's alone."""
        holders = [c.sess_id for c in self.brain.snapshot().claims
                   if not c.is_terminal and any(e.kind == "section" for e in c.scope)]
        if holders:
            self.step = ("bind", holders[0])
            agents.record_binding(self.root, holders[0], AGENT, self.now, process="")
            self.bound_to.append(holders[0])

    @rule(mode=st.sampled_from(["allow", "warn", "deny", "bogus", "[unread"]))
    def unclaimed_writes(self, mode: str) -> None:
        """brain-compose.yml naming a mode of unclaimed writes, none, or not reading at all (asked of the hook for a
        few calls, then fixed: the machine's own rules would not write)."""
        self.step = ("config", None)
        config = self.root / "brain-compose.yml"
        config.write_text(f"hooks:\n  unclaimed_writes: {mode}\n", encoding="utf-8")
        if mode.startswith("["):
            self.the_shortcut_never_says_go_where_the_core_refuses()
            config.write_text("hooks:\n  unclaimed_writes: warn\n", encoding="utf-8")

    @rule(index=st.integers(0, 1000), file=st.sampled_from(RELS[:9]), minutes=st.sampled_from([1, 30, 120]))
    def lock(self, index: int, file: str, minutes: int) -> None:
        """A claim of the tree locks a file (another session's write of it is then the core's to refuse)."""
        sess = self.pick(index)
        self.step = ("lock", sess)
        try:
            self.brain.locks.acquire(file, sess, str(minutes))
        except (BsiError, TransitionRefused):
            return
        event("lock acquired")

    @rule(calls=st.lists(st.one_of(EDITS, SHELLS), min_size=1, max_size=6), named=st.booleans())
    def hook_calls(self, calls: list[tuple[Any, ...]], named: bool) -> None:
        """A few tool calls of the sessions, each asked of the shortcut, then (when it lets it through) the core;
        the hook line names the brain (`--brain`), or the hook finds it from the event."""
        self.named = named
        for call in calls:
            self.call(call)

    @invariant()
    def the_shortcut_never_says_go_where_the_core_refuses(self) -> None:
        """A few calls of the fixed corpus, on whatever brain the steps so far made."""
        self.named = True
        for _ in range(PER_STEP):
            self.call(CORPUS[self.asked % len(CORPUS)])
            self.asked += 1
        if any(e.kind == "section" for sess in self.bound_to if (c := self.brain.snapshot().claim(sess)) is not None
               for e in c.scope):
            for tool in ("Write", "Edit", "apply_patch"):  # a session holding a section of a/x.md writes it
                self.edit(tool, ["a/x.md"], tool != "apply_patch", "", "bound")

    def call(self, call: tuple[Any, ...]) -> None:
        if call[0] in SHELL_TOOLS:
            self.shell(*call)
        else:
            self.edit(*call)

    def edit(self, tool: str, rels: list[str], absolute: bool, cwd: str, session: str) -> None:
        """An edit tool's write (MultiEdit and NotebookEdit name one file; a second path rides on Write only)."""
        folder = self._cwd(cwd)
        paths = [str(self.root / rel) if absolute else os.path.relpath(self.root / rel, folder) for rel in rels]
        inputs: dict[str, dict[str, Any]] = {
            "Write": {"file_path": paths[0], "content": "x"},
            "Edit": {"file_path": paths[0], "old_string": "a", "new_string": "b"},
            "MultiEdit": {"file_path": paths[0], "edits": [{"old_string": "a", "new_string": "b"}]},
            "NotebookEdit": {"notebook_path": paths[0], "new_source": "x"},
            "write_file": {"file_path": paths[0], "content": "x"},
            "replace": {"file_path": paths[0], "old_string": "a", "new_string": "b"},
            "apply_patch": {"command": f"*** Begin Patch\n*** Update File: {paths[0]}\n@@\n-a\n+b\n*** End Patch\n"},
        }
        tool_input = inputs[tool]
        if tool == "Write" and len(paths) > 1:
            tool_input["notebook_path"] = paths[1]  # every key naming a target is checked
        self.check(tool, tool_input, folder, session)

    def shell(self, tool: str, parts: list[tuple[str, str, str]], join: str, cwd: str, session: str) -> None:
        """A shell line of one or two commands of the reader's vocabulary (Gemini's and Codex's tools name their
        own folder: the brain's, the event's cwd then being outside it)."""
        folder = self._cwd(cwd)
        line = join.join(template.format(p=self._shell_path(p, folder), q=self._shell_path(q, folder),
                                         d=self._shell_path(os.path.dirname(p) or ".", folder))
                         for template, p, q in parts)
        tool_input = {"command": line}
        if tool != "Bash":
            tool_input[{"run_shell_command": "directory", "exec_command": "workdir"}[tool]] = str(folder)
            folder = self.outside
        self.check(tool, tool_input, folder, session)

    # -- helpers --------------------------------------------------------------------------------------------
    def _cwd(self, name: str) -> Path:
        return self.outside if name == "out" else self.root / name if name else self.root

    def _shell_path(self, rel: str, folder: Path) -> str:
        return os.path.relpath(self.root / rel, folder) if folder != self.outside else str(self.root / rel)

    def check(self, tool: str, tool_input: dict[str, Any], cwd: Path, session: str) -> None:
        """Whatever the settled shortcut lets through, the core lets through."""
        now = self.now.isoformat()
        payload = {"session_id": STRANGER if session == "unbound" else AGENT, "cwd": str(cwd),
                   "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input}
        environ = {k: v for k, v in os.environ.items() if k != SESSION_VARIABLE}
        if session == "launched":
            payload["session_id"] = STRANGER
            environ[SESSION_VARIABLE] = self.pick(len(self.bound_to))
        self.settle(now)
        flags = {"brain": str(self.root), "now": now} if self.named else {"now": now}
        quick = fast.decide(payload, flags, environ)
        if quick is None:
            event("shortcut: the core decides")
            return
        event(f"shortcut: go ({tool}, {session})")
        try:  # as `bsi hook pre-tool-use` does when the shortcut answers None
            root = find_brain(flags.get("brain"), environ, payload, wire.target_files(payload) or [])
            answer = events.pre_tool_use(events.HookContext("pre-tool-use", payload, "claude", root, now, environ))
        except Exception as exc:  # noqa: BLE001 - the hook fails closed on a bound write: no go of the core
            raise AssertionError(f"the shortcut let through {tool} {tool_input!r} ({session}); the core "
                                 f"raised {exc!r}") from exc
        assert answer.code == 0, (f"the shortcut let through {tool} {tool_input!r} ({session}) from {cwd}; "
                                  f"the core refuses: {answer.err}")

    def settle(self, now: str) -> None:
        """The index written by the core's own read of the brain, past its racy window: the shortcut uses it."""
        index = hook_index.load(self.root)
        if index is not None:
            return
        (self.root / HOOK_INDEX_FILE).unlink(missing_ok=True)
        with clock_ahead(hook_index.RACY_NS / 1e9 + 0.2):
            Brain(self.root, now=now, commit=False, sync="local").decide_write("zz-nothing/x", WriteSession())
        assert hook_index.load(self.root) is not None, "the index should be settled"


ShortcutShadowMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestHookShortcutShadow = ShortcutShadowMachine.TestCase

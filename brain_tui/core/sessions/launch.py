"""Launching a satellite for an open claim (SPEC 20.5).

The rule of what may be launched and how the agent's argv is built lives here:

- only an ``open`` claim is launched, at most `MAX_RUNNING` at once on this
  machine, and never twice while its first launch still runs;
- the command is ``launch.command`` in brain-compose.yml, an argv list whose
  elements may hold the placeholders ``{sess_id} {scope} {story} {prompt}
  {slug} {root} {settings}``. A placeholder's value stays inside the element that names it
  (never split, never given to a shell); claim text cannot choose the program
  nor add an option (an element that only starts with ``-`` because of claim
  text is refused);
- in tmux (``launch.tmux``, default: when tmux is installed) the agent runs in a
  new window named after the slug, with ``BSI_SESSION`` and ``BRAIN_ROOT`` set
  (`core.tmux` starts it; window names keep only ``[A-Za-z0-9._-]``);
- a Claude Code satellite gets its claim's sandbox (`core.fence.claim_sandbox`:
  its shell writes only where the claim's folder and file scopes are) as
  ``claude --settings .brain/launch/<sess-id>.json``: inserted after the
  program when the command's program is ``claude`` and names no ``--settings``
  of its own, or wherever ``{settings}`` is written.

Whatever launches it, the command runs under bsi's launch root (`core.sessions.launch_root`): an agent
process for `core.agent_tree`, so nothing below it is a human's, even with its markers stripped.

Running launches are remembered in ``.brain/launches/<sess-id>.json`` (local,
never committed): the process (pid and start time), and the tmux window.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from brain_tui.core.config import PLACEHOLDER_RE, argv_element_problem, template_placeholders
from brain_tui.core.errors import Contended, InvalidData, NotFound, TransitionRefused, UsageError
from brain_tui.core.ids import valid_session_id
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.layout import LAUNCH_DIR, LAUNCH_SETTINGS_DIR, ROOT_VARIABLE, SESSION_VARIABLE
from brain_tui.core.record import field_names, record
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.state_json import read_state_json
from brain_tui.core.records.yamlio import atomic_write_text
from brain_tui.core.rules.claims import require_claim
from brain_tui.core.sessions.launch_root import root_argv

#: At most this many launched agents run at once from one brain on one machine.
MAX_RUNNING = 3
PLACEHOLDERS = ("sess_id", "scope", "story", "prompt", "slug", "root", "settings")
#: Placeholders whose value comes from claim text (never the program, never an option).
CLAIM_TEXT = frozenset({"sess_id", "scope", "story", "prompt", "slug"})
#: Programs that read `--settings FILE` (Claude Code).
CLAUDE_PROGRAMS = frozenset({"claude", "claude.exe"})
WINDOW_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")

#: What `bsi launch` prints when brain-compose.yml has no `launch.command`.
EXAMPLES = """\
no launch command configured: add one to brain-compose.yml, for example
  Claude Code:
    launch:
      command: [claude, "{prompt}"]
  Codex CLI:
    launch:
      command: [codex, "{prompt}"]
  Gemini CLI:
    launch:
      command: [gemini, --prompt-interactive, "{prompt}"]
placeholders: {sess_id} {scope} {story} {prompt} {slug} {root} {settings}; each stays one argument, never shell
text; a `claude` command gets `--settings <the claim's sandbox>` unless it names its own;
`launch.tmux: false` runs it in this terminal instead of a new tmux window"""


class NoLaunchCommand(UsageError):
    """brain-compose.yml has no ``launch.command`` (exit 64); the message is `EXAMPLES`."""

    def __init__(self) -> None:
        super().__init__(EXAMPLES)


@record
class LaunchSettings:
    """The ``launch:`` block of brain-compose.yml.

    Attributes:
        command: the argv template, or None when none is configured.
        tmux: True/False as configured, None for the default (tmux when installed).
        problem: why the block could not be used ("" when fine).
    """

    command: tuple[str, ...] | None = None
    tmux: bool | None = None
    problem: str = ""

    def use_tmux(self) -> bool:
        """True when launches go to a new tmux window (configured, else when tmux is installed)."""
        return self.tmux if self.tmux is not None else shutil.which("tmux") is not None


def launch_settings(raw_config: Mapping[str, Any], unreadable: str | None = None) -> LaunchSettings:
    """Read ``launch.command`` and ``launch.tmux`` from the raw brain-compose.yml mapping.

    `unreadable`: why brain-compose.yml does not read (`BrainConfig.problem`); then nothing of it is used and
    the launch says so (a launch block may be there: "no launch command configured" would send the user astray).
    """
    if unreadable:
        return LaunchSettings(problem=f"launch: {one_line(unreadable)[:300]}; fix brain-compose.yml to launch")
    block = raw_config.get("launch")
    if block is None:
        return LaunchSettings()
    if not isinstance(block, Mapping):
        return LaunchSettings(problem="launch: must be a mapping with `command:` (an argv list)")
    tmux = block.get("tmux")
    tmux_value = tmux if isinstance(tmux, bool) else None
    command = block.get("command")
    if command is None:
        return LaunchSettings(tmux=tmux_value)
    if isinstance(command, str) or not isinstance(command, list) or not command:
        return LaunchSettings(tmux=tmux_value, problem=(
            "launch.command must be a non-empty argv list, e.g. [claude, \"{prompt}\"] "
            "(a string would need a shell)"))
    if problem := argv_element_problem("launch.command", command, numbers=True):
        return LaunchSettings(tmux=tmux_value, problem=problem)
    if not str(command[0]).strip():
        return LaunchSettings(tmux=tmux_value, problem="launch.command: the program (first element) is empty")
    return LaunchSettings(command=tuple(str(item) for item in command), tmux=tmux_value)


def one_line(text: str) -> str:
    """Claim text for the launch message: control characters and line breaks become single spaces."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(cleaned.split())


def launch_prompt(snapshot: BrainSnapshot, claim: Claim) -> str:
    """The seed's launch message (satellite-boot): ``Satellite: <scope> — <task>``, type, pilot, claim.

    Every field is made one line (scope, task, type, and the parent, which the claim file gives as written), so
    claim text cannot add lines of its own.
    """
    task = one_line(claim.story) or "(no task written in the claim)"
    lines = [f"Satellite: {one_line(claim.scope_text)} — {task}"]
    if claim.satellite_type:
        lines.append(f"satellite_type: {one_line(claim.satellite_type)}")
    root = snapshot.root_of(claim.sess_id)
    pilot = claim.parent if claim.parent else None
    if root is not None and root.sess_id != claim.sess_id:
        pilot = root.sess_id
    lines.append(f"pilote: {one_line(pilot)[:80] if pilot else 'standalone'}")  # a parent edited by hand: raw text
    from brain_tui.core.rules.handoff import previous_result_line

    previous = previous_result_line(claim)
    if previous:
        lines.append(previous)
    lines.append(f"claim: {claim.sess_id} (already open: do not open another)")
    return "\n".join(lines)


def settings_file(root: Path, sess_id: str) -> Path:
    """The launch's agent settings: ``.brain/launch/<sess-id>.json``."""
    return root / LAUNCH_SETTINGS_DIR / f"{sess_id}.json"


def argv_file(root: Path, sess_id: str, token: str = "") -> Path:
    """Where a tmux launch hands the agent's argv to its launch root: ``.brain/launch/<sess-id>[.<token>].argv.json``
    (`token`: one launch's own, so a root an earlier launch left waiting never takes a later one's argv)."""
    return root / LAUNCH_SETTINGS_DIR / f"{sess_id}{'.' + token if token else ''}.argv.json"


def wants_settings(template: Sequence[str]) -> tuple[bool, bool]:
    """(whether the launch needs its settings file, whether ``--settings FILE`` must be inserted).

    The file is needed when ``{settings}`` is written, or when the program is ``claude`` and the
    command names no ``--settings`` of its own (then it is inserted after the program).
    """
    named = any("{settings}" in element for element in template)
    own = any(element == "--settings" or element.startswith("--settings=") for element in template[1:])
    insert = bool(template) and Path(template[0]).name in CLAUDE_PROGRAMS and not own and not named
    return named or insert, insert


def placeholder_values(snapshot: BrainSnapshot, claim: Claim, root: Path) -> dict[str, str]:
    """The value of each placeholder for `claim`."""
    return {
        "settings": str(settings_file(root, claim.sess_id)),
        "sess_id": claim.sess_id,
        "scope": claim.scope_text,
        "story": claim.story,
        "prompt": launch_prompt(snapshot, claim),
        "slug": claim.slug,
        "root": str(root),
    }


def build_argv(template: Sequence[str], values: Mapping[str, str]) -> tuple[str, ...]:
    """Fill the placeholders of an argv template: each element stays exactly one element.

    Raises:
        InvalidData: an unknown placeholder, claim text in the program name, an element
            that claim text turns into an option, or a NUL character.
    """
    if not template:
        raise InvalidData("launch.command is empty")
    argv: list[str] = []
    for index, element in enumerate(template):
        names = template_placeholders("launch.command", element, PLACEHOLDERS)
        if index == 0 and CLAIM_TEXT.intersection(names):
            raise InvalidData("launch.command: the program (first element) cannot come from claim text")
        value = PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], element)
        if "\x00" in value:
            raise InvalidData("launch refused: claim text holds a NUL character, which no argument can carry")
        if value.startswith("-") and not element.startswith("-"):
            raise InvalidData(f"launch refused: claim text would make argument {index} an option "
                              f"({one_line(value)[:40]!r}); start the claim's story with something else")
        argv.append(value)
    if "=" in argv[0]:
        raise InvalidData("launch.command: the program name cannot hold '='")
    return tuple(argv)


def window_name(claim: Claim) -> str:
    """The tmux window name: the claim's slug, kept to ``[A-Za-z0-9._-]`` (tmux expands ``#`` in names)."""
    name = WINDOW_NAME_RE.sub("-", claim.slug).strip("-")
    return name[:40] or "satellite"


def launchable(snapshot: BrainSnapshot, claim: Claim) -> None:
    """Raise TransitionRefused (exit 12) unless `claim` may be launched: only a claim that may work now
    (`effective.require_may_work`: an agent launched for it could not work otherwise)."""
    from brain_tui.core.rules.effective import require_may_work

    require_may_work(snapshot, claim, "launch")


# -- what runs -----------------------------------------------------------------------------------
@record
class LaunchRecord(JsonShaped):
    """One launch, as remembered in ``.brain/launches/<sess-id>.json``.

    Attributes:
        sess_id: the launched claim.
        mode: "tmux" or "terminal".
        pid: the agent's launch root (the tmux pane's process; the agent is its child), 0 when unknown.
        create_time: the process start time (guards against a reused pid).
        started_at: ISO time of the launch (brain clock).
        window: the tmux window id (``@3``), "" outside tmux.
        target: the tmux target to attach to (``session:index``), "" outside tmux.
        socket: the tmux server's socket path, "" outside tmux.
        name: the tmux window name.
        pane: the agent's own tmux pane (``%3``): keys go there, not to whichever pane of the window is active.
    """

    sess_id: str
    mode: str
    pid: int
    create_time: float
    started_at: str
    window: str = ""
    target: str = ""
    socket: str = ""
    name: str = ""
    pane: str = ""


    def is_running(self) -> bool:
        """True while the launched process lives (same pid, same start time, not a zombie)."""
        if self.pid <= 0:
            return False
        import psutil

        try:
            process = psutil.Process(self.pid)
            if abs(process.create_time() - self.create_time) > 1.0:
                return False
            return bool(process.status() != psutil.STATUS_ZOMBIE)
        except (psutil.Error, OSError):
            return False


def _records_dir(root: Path) -> Path:
    return root / LAUNCH_DIR


def read_records(root: Path) -> list[LaunchRecord]:
    """Every launch remembered for this brain on this machine (unreadable files skipped)."""
    folder = _records_dir(root)
    records: list[LaunchRecord] = []
    try:
        paths = sorted(folder.glob("sess-*.json"))
    except OSError:
        return records
    fields = set(field_names(LaunchRecord))
    for path in paths:
        data = read_state_json(path)  # None: unreadable, no regular file (a FIFO: never waited on), not JSON
        try:
            if isinstance(data, dict):
                records.append(LaunchRecord(**{k: v for k, v in data.items() if k in fields}))
        except (ValueError, TypeError):
            continue
    return records


def running(root: Path) -> list[LaunchRecord]:
    """The launches whose agent still runs."""
    return [record for record in read_records(root) if record.is_running()]


def write_record(root: Path, record: LaunchRecord) -> None:
    """Remember a launch (atomic write, local only)."""
    folder = _records_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / f"{record.sess_id}.json", json.dumps(record.as_dict(), indent=1) + "\n")


@record
class LaunchPlan(JsonShaped):
    """Everything decided before anything starts.

    Attributes:
        sess_id: the claim.
        argv: the agent's argv, placeholders filled.
        env: the variables set for it (``BSI_SESSION``, ``BRAIN_ROOT``).
        cwd: where it starts (the brain root).
        tmux: True to start it in a new tmux window.
        name: the tmux window name.
        settings_path: the agent settings file written before it starts ("" when none is).
        settings: that file's content (the claim's sandbox), None when none is written.
    """

    sess_id: str
    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str
    tmux: bool
    name: str
    settings_path: str = ""
    settings: Mapping[str, Any] | None = None

    _json_names = {"name": "window"}
    _json_none_if_unset = frozenset({"settings_path"})


def write_settings(plan: LaunchPlan) -> None:
    """Write the plan's agent settings file (atomic, local only) before the agent starts; nothing when none."""
    if plan.settings is None or not plan.settings_path:
        return
    path = Path(plan.settings_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(plan.settings, indent=2, ensure_ascii=False) + "\n")


def check_settings(settings: LaunchSettings) -> None:
    """Raise unless a launch command is configured and usable: NoLaunchCommand (64) when none is,
    InvalidData (65) for a bad ``launch:`` block.
    """
    if settings.problem:
        raise InvalidData(settings.problem)
    if settings.command is None:
        raise NoLaunchCommand()


#: A bound agent in one of these states still holds its claim: no second agent is launched for it.
HOLDING_STATES = frozenset({"working", "needs_input"})


def plan_launch(snapshot: BrainSnapshot, settings: LaunchSettings, root: Path, sess_id: str,
                *, tmux: bool | None = None, liveness: Mapping[str, Any] | None = None) -> LaunchPlan:
    """Decide a launch: the claim may be launched, a slot is free, the argv is built.

    `tmux`: force (True) or refuse (False) a tmux window, None follows the settings. `liveness`: the bound
    agents' (`brain.agents.liveness()`): a claim whose agent is working or needs input is not launched again.

    Raises:
        NoLaunchCommand: no launch command configured (exit 64, with examples).
        InvalidData: a bad ``launch:`` block or claim text that cannot become an argument (65).
        NotFound: no such claim (66). TransitionRefused: the claim is not open, its launch runs, or
            its bound agent still works on it (12).
        Contended: `MAX_RUNNING` launches already run (75).
    """
    check_settings(settings)
    assert settings.command is not None
    claim = require_claim(snapshot, sess_id)
    launchable(snapshot, claim)
    bound = (liveness or {}).get(claim.sess_id)
    if bound is not None and getattr(bound, "state", None) in HOLDING_STATES:
        raise TransitionRefused(f"cannot launch {claim.sess_id}: its agent session {bound.agent_session or '?'} "
                                f"is {bound.state.replace('_', ' ')} on it")
    live = running(root)
    mine = [r for r in live if r.sess_id == claim.sess_id]
    if mine:
        where = f" in tmux window {mine[0].target} ({mine[0].name})" if mine[0].mode == "tmux" else ""
        raise TransitionRefused(f"cannot launch {claim.sess_id}: its agent already runs{where} (pid {mine[0].pid})")
    if len(live) >= MAX_RUNNING:
        names = ", ".join(r.sess_id for r in live)
        raise Contended(f"cannot launch {claim.sess_id}: {len(live)} launched agents already run ({names}); "
                        f"at most {MAX_RUNNING} at once — end one first")
    values = placeholder_values(snapshot, claim, root)
    argv = build_argv(settings.command, values)
    needed, insert = wants_settings(settings.command)
    from brain_tui.core.sessions.fence import claim_sandbox  # here: the hook path imports this module, not the fence

    if insert:
        argv = (argv[0], "--settings", values["settings"], *argv[1:])
    use_tmux = settings.use_tmux() if tmux is None else tmux
    if use_tmux and shutil.which("tmux") is None:
        raise UsageError("launch: tmux is not installed: run `bsi launch ID --here` in a terminal, "
                         "or set `launch.tmux: false`")
    return LaunchPlan(sess_id=claim.sess_id, argv=argv, env={SESSION_VARIABLE: claim.sess_id, ROOT_VARIABLE: str(root)},
                      cwd=str(root), tmux=use_tmux, name=window_name(claim),
                      settings_path=values["settings"] if needed else "",
                      settings=claim_sandbox(root, claim.scope) if needed else None)


def require_program(plan: LaunchPlan) -> str:
    """The path of the plan's program, in this terminal or in a tmux window alike (a window whose program is
    missing dies at once: the launch must not be reported as started).

    Raises:
        NotFound: the program is not on PATH (exit 66).
    """
    program = shutil.which(plan.argv[0])
    if program is None:
        raise NotFound(f"launch: program {plan.argv[0]!r} not found on PATH")
    return program


def exec_here(plan: LaunchPlan, root: Path, started_at: str) -> NoReturn:
    """Replace this process by the agent's launch root (same terminal), which runs the agent as its child,
    remembering the launch first; NotFound (66) when the program is not installed.
    """
    program = require_program(plan)
    write_settings(plan)
    pid = os.getpid()
    write_record(root, LaunchRecord(sess_id=plan.sess_id, mode="terminal", pid=pid, create_time=create_time(pid),
                                    started_at=started_at))
    env = {**os.environ, **plan.env}
    os.chdir(plan.cwd)
    argv = root_argv(program, plan.argv)  # this process becomes the launch root, the agent its child
    os.execve(argv[0], argv, env)


def create_time(pid: int) -> float:
    """The process start time of `pid` (0.0 when unknown)."""
    import psutil

    try:
        return float(psutil.Process(pid).create_time()) if pid > 0 else 0.0
    except (psutil.Error, OSError):
        return 0.0


def find_running(root: Path, sess_id: str) -> LaunchRecord:
    """The running launch of `sess_id`.

    Raises:
        InvalidData: `sess_id` is not a session ID (exit 65, the ID shown escaped).
        NotFound: no launched agent of that claim runs (exit 66).
    """
    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}: expected sess-…")
    for launched in running(root):
        if launched.sess_id == sess_id:
            return launched
    raise NotFound(f"no launched agent of {sess_id} runs on this machine")


# -- HANDOFF → a new claim -----------------------------------------------------------------------

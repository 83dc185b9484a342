"""The shortcut of `pre-tool-use`: a write that nothing can refuse is let through from the hook index alone.

Imports only the standard library, `hooks.wire`, `core.agent_files`,
`core.layout`, `core.path_keys`, `core.git_head`, `core.program_files` (the core's own rule for files no agent
writes), `core.hook_index` and (for a shell tool) `core.shell_targets`.
It never refuses anything: whenever the index is missing,
stale or racy, the file is a protocol file, or any check might refuse, it
answers None and the hook asks the core (`Brain.decide_write`), which decides,
explains, and rebuilds the index.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from brain_tui.core.paths import layout, path_keys
from brain_tui.core.records import git_head
from brain_tui.core.rules.program_files import program_file_reason
from brain_tui.core.sessions import agent_files, hook_index
from brain_tui.hooks import wire

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from typing import Any


def _root(flags: dict[str, str], environ: dict[str, str], event: dict[str, Any], files: list[str]) -> str | None:
    starts = [environ.get("CLAUDE_PROJECT_DIR", ""), wire.text_field(event, "cwd")]
    return layout.locate_brain(flags.get("brain"), environ, starts + [os.path.dirname(f) for f in files])


def _now(flags: dict[str, str], environ: dict[str, str]) -> float | None:
    text = flags.get("now") or environ.get("BRAIN_NOW")
    if not text:
        return time.time()
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None or moment.timestamp() > time.time():
        return None  # a clock ahead of the machine's is the core's to judge (an agent's is refused)
    if moment.timestamp() < time.time():
        from brain_tui.core.rules.authority import current_actor

        if current_actor().is_agent:
            return None  # an agent's clock behind: the core judges its claims at the machine's clock
    return moment.timestamp()


def decide(event: dict[str, Any], flags: dict[str, str], environ: dict[str, str]) -> tuple[int, str, str] | None:
    """``(0, stdout, stderr)`` when the write may go ahead on the index's word; None: ask the core.

    A shell tool's command is read here too (`core.shell_targets`): its targets are checked as writes,
    and a bound session's claim must plainly be able to act (else the core refuses and explains).
    """
    cwd = wire.text_field(event, "cwd") or os.getcwd()
    if not wire.names_tool(event):
        return None  # bad input: the core says what failed (and a bound session's call is denied)
    if wire.text_field(event, "tool_name") in wire.TYPING_TOOLS:
        return None  # text typed into a running program: the core reads it
    shell = wire.shell_command(event)
    if shell is not None:
        if not shell or wire.text_field(event, "tool_name") not in wire.SHELL_TOOLS:
            return None  # another MCP server's command runs in a folder the core reads it from
        from brain_tui.core.sessions import shell_targets

        reading = shell_targets.read_command(shell, wire.shell_cwd(event, cwd))
        if reading.refused_whole or reading.named or any(target.tree for target in reading.targets):
            return None  # a line refused whatever it writes, a whole folder, or git's record of a path: the core
        paths: list[str] | None = [target.path for target in reading.targets]
    else:
        paths = wire.target_files(event)
        if paths is None:
            return 0, "", ""
        if not paths:
            return None
    assert paths is not None
    root = _root(flags, environ, event, paths)
    now = _now(flags, environ)
    # a claim opened via MCP, or an open killed before its binding, waits: the core binds it
    if root is None or now is None or agent_files.has_pending(root) or agent_files.has_opening(root) \
            or git_head.rewound(Path(root)) is not None:  # HEAD at an old commit: the core refuses
        return None
    index: dict[str, Any] | None = None
    if shell is not None:
        index = hook_index.load(root)
        if index is None:
            return None
        bound = _bound(index, root, event, environ)
        if bound and not hook_index.session_acts(index, bound, now):
            return None
        if bound and reading.in_code and hook_index.holds_sections(index, bound):
            return None  # a file held by sections that code writing names: the core reads which (`section_writes`)
    notes: list[str] = []
    for path in paths:
        if "\x00" in path:
            return None
        if program_file_reason(Path(root), path_keys.absolute(path, cwd), False, path, environ) is not None:
            return None  # git's folder, a `.git` in the brain, a client's hooks or MCP servers: the core refuses it
        rel = path_keys.brain_target(root, path_keys.absolute(path, cwd))
        if rel is None:
            if path_keys.brain_holding(path_keys.absolute(path, cwd)) is not None:
                return None  # a file in another brain (or another checkout): the core checks it there
            continue
        if path_keys.names_folder(path_keys.absolute(path, cwd)):
            return None  # a folder written whole: the index keys locks by file, the core looks below it
        if not rel or path_keys.is_protocol_path(rel) or path_keys.hard_linked(root, rel) is not None:
            return None
        holding = path_keys.brain_holding(path_keys.absolute(path, cwd))
        if holding is not None and holding != root and path_keys.brain_target(root, holding) is None:
            return None  # a link of this brain into another brain: the core checks it there too
        if index is None:
            index = hook_index.load(root)
            if index is None:
                return None
        bound = _bound(index, root, event, environ)
        if bound:
            if not hook_index.session_acts(index, bound, now) or \
                    not any(hook_index.may_write(index, sess_id, rel, now) for sess_id in bound):
                return None
            continue
        if not hook_index.unclaimed_free(index, rel):
            return None
        if index["unclaimed"] not in ("allow", "warn"):
            return None
        if index["unclaimed"] == "warn":
            notes.append(rel)
    if not notes:
        return 0, "", ""
    from brain_tui.core.paths.text_safety import inert_line as fact

    text = "bsi: note: " + hook_index.UNCLAIMED_NOTE.format(file=fact(notes[0], 200))
    return 0, wire.dumps(wire.note(text)), text + "\n"


def _bound(index: dict[str, Any], root: str, event: dict[str, Any], environ: dict[str, str]) -> list[str]:
    """`$BSI_SESSION`, else the claims bound to the agent session (local records, then the index)."""
    launched = environ.get(layout.SESSION_VARIABLE, "").strip()
    if launched:
        from brain_tui.core.rules.agent_tree import launcher_claim

        # a value its agent process was not started with is left to the full decision (it names no claim)
        if launcher_claim(environ, root) != launched:
            return ["(invalid BSI_SESSION)"]
        return [agent_files.renamed_to(root, launched)]  # a claim sync renamed: its new ID
    session = wire.text_field(event, "session_id") or agent_files.env_agent_session(environ)
    if not agent_files.valid_agent_session(session):
        return []
    return agent_files.bound_claims(root, session) or hook_index.bound_in_index(index, session)

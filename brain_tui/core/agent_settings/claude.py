"""`bsi hooks install|uninstall|status` for Claude Code, and `bsi mcp install`'s `.mcp.json`.

`.claude/settings.json` (or `settings.local.json`) and `.mcp.json` belong to the user: every foreign key, hook and
server is kept as it is; our own entries (a hook whose command runs `bsi … hook EVENT`, the `bsi` MCP server's
command, our `permissions.deny` rules, the sandbox fence of `sandbox.py`) are replaced in place, and a key the user
added to our server entry (its `env`) is kept. A second run changes nothing. A file that is not valid JSON is refused
(exit 65) and left untouched. Gemini CLI and Codex have their own modules
(`gemini.py`, `codex.py`); what they share is in `files.py`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brain_tui.core.agent_settings import created, sandbox
from brain_tui.core.agent_settings.files import (
    Report,
    copy,
    event_status,
    has_any,
    hook_command,
    hook_events,
    load,
    merge_event_hooks,
    put_mcp_server,
    refuse,
    remove_event_hooks,
    resolves,
    save,
)
from brain_tui.core.sessions import own_tools

__all__ = ["DENY_RULES", "HOOK_EVENTS", "TOOL_MATCHER", "install", "mcp_install", "status", "uninstall"]

#: The tools the hook sees: the edit tools, `Bash` (the hook checks what a command line writes, SPEC 21.3), and
#: every tool of another MCP server (``mcp__<server>__<tool>``: such a server writes outside the sandbox; the hook
#: checks the ones whose name says they write), never bsi's own (``mcp__bsi__<one of its tools>``: the server
#: decides those; a server named ``bsi__x`` is another's).
#: Claude Code reads a matcher holding more than names and ``|`` as a JavaScript regular expression, unanchored:
#: the anchors keep the edit tools matched exactly.
TOOL_MATCHER = f"^(Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__(?!bsi__(?:{own_tools.own_names()})$).*)$"
#: One hook per event (Claude Code event name, matcher or None, our kebab-case event).
HOOK_EVENTS = hook_events("claude", TOOL_MATCHER, "startup|resume|clear|compact")
#: Seconds Claude Code gives each hook: short, so a stuck hook costs little (a timed-out hook is "go ahead",
#: which the deny rules below back up).
HOOK_TIMEOUT_S = 10
#: The backstop: Claude Code's own file tools never edit the protocol files, even when a hook times out.
#: (`Edit(…)` rules cover every built-in tool that edits files.)
#: And the agent's own Bash never runs a human's decision (SPEC 6.3, 20.3: approve, reject, pause,
#: resume, abort and release are a human's, in the cockpit or a terminal of their own): without
#: these, `bsi gate approve <its own claim>` from the agent's Bash would lift its own gate.
HUMAN_ONLY_COMMANDS = ("gate approve", "gate reject", "gate pause", "gate resume", "gate abort", "claim release")
DENY_RULES = (
    "Edit(claims/**)",
    "Edit(signals/**)",
    "Edit(locks/**)",
    "Edit(breath/**)",
    "Edit(.brain/**)",
    "Edit(BRAIN-INDEX.md)",
    *(f"Bash(*bsi *{command}*)" for command in HUMAN_ONLY_COMMANDS),
)


def settings_path(root: str | os.PathLike[str], local: bool) -> Path:
    """`.claude/settings.json`, or `.claude/settings.local.json` with `--local`."""
    return Path(root) / ".claude" / ("settings.local.json" if local else "settings.json")


def merge_hooks(data: dict[str, Any], program: str, path: Path, *, fence: bool | None = True) -> dict[str, Any]:
    """`data` with our hook entries in place, the deny rules, and (with `fence`) the sandbox fence.

    `fence=False` takes out the fence of an earlier install (the file says what was asked); `fence=None` leaves the
    sandbox block as it is.
    """
    data = copy(data)
    merge_event_hooks(data, HOOK_EVENTS, path, program=program, agent="claude", timeout=HOOK_TIMEOUT_S)
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise refuse(path, "\"permissions\" is not a JSON object")
    deny = permissions.setdefault("deny", [])
    if not isinstance(deny, list):
        raise refuse(path, "permissions.deny is not a list")
    for rule in DENY_RULES:
        if rule not in deny:
            deny.append(rule)
    if fence:
        sandbox.merge_fence(data, path)
    elif fence is False:
        sandbox.remove_fence(data)
    return data


def remove_hooks(data: dict[str, Any], path: Path, added: list[str] | None = None) -> dict[str, Any]:
    """`data` without any of our hooks, deny rules or fence (empty containers we leave behind are removed).

    `added`: what install recorded adding to the sandbox block (None: not known on this clone).
    """
    data = copy(data)
    remove_event_hooks(data, path)
    permissions = data.get("permissions")
    if isinstance(permissions, dict) and isinstance(permissions.get("deny"), list):
        permissions["deny"] = [rule for rule in permissions["deny"] if rule not in DENY_RULES]
        if not permissions["deny"]:
            del permissions["deny"]
        if not permissions:
            del data["permissions"]
    sandbox.remove_fence(data, added)
    return data


def install(root: str | os.PathLike[str], local: bool, program: str = "bsi", *, fence: bool = True) -> Report:
    """`bsi hooks install [--local] [--no-sandbox]`: merge, write atomically when something changed.

    What the fence added to the user's file is remembered on this clone, for `uninstall`.
    """
    base = Path(root)
    path = settings_path(root, local)
    before = load(path)
    after = merge_hooks(before, program, path, fence=None)
    earlier = sandbox.recorded(base, path)
    added: list[str] = []
    if fence:
        added = sandbox.merge_fence(after, path)
    else:
        sandbox.remove_fence(after, earlier)
    report = status_of(path, after, program, fence=fence)
    if after == before and path.exists():
        report.action = "unchanged"
        return report
    # What the fence adds is remembered before it is written: killed in between, the record names entries the
    # file does not hold yet (the next install writes them); the other way round, the next install would find
    # them in place, add nothing, and leave them unrecorded for good (uninstall could not tell them from yours).
    if fence and added:
        sandbox.remember(base, path, [*(earlier or []), *(item for item in added if item not in (earlier or []))])
    created.note_creation(base, path)
    save(path, after)
    if not fence:
        sandbox.remember(base, path, None)
    report.action = "updated" if has_any(before, HOOK_EVENTS) else "installed"
    return report


def uninstall(root: str | os.PathLike[str], local: bool) -> Report:
    """`bsi hooks uninstall [--local]`: remove exactly our entries (the fence: what install added); a file install
    created that holds nothing else then goes (`created`)."""
    base = Path(root)
    path = settings_path(root, local)
    before = load(path)
    after = remove_hooks(before, path, sandbox.recorded(base, path))
    if created.settle(base, path, after):
        sandbox.remember(base, path, None)
        return Report(str(path), "removed", notes=[f"{path}: {created.DELETED}"])
    if after == before:
        return Report(str(path), "absent")
    save(path, after)
    sandbox.remember(base, path, None)
    return Report(str(path), "removed")


def status_of(path: Path, data: dict[str, Any], program: str = "bsi", *, fence: bool = True) -> Report:
    """What of ours is in `data`: missing and outdated entries, the sandbox's state, whether the command resolves."""
    report = Report(str(path), "status", command=hook_command(program, "EVENT"))
    event_status(report, data, HOOK_EVENTS, program=program, agent="claude", timeout=HOOK_TIMEOUT_S)
    permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    for rule in DENY_RULES:
        if not isinstance(deny, list) or rule not in deny:
            report.missing.append(f"permissions.deny: {rule}")
    if fence:
        sandbox.fence_status(report, data)
        deps = sandbox.dependencies()
        report.extra["sandbox"] = deps
        report.notes.append(sandbox.dependency_line(deps))
    report.resolves = resolves(program)
    return report


def status(root: str | os.PathLike[str], local: bool, program: str = "bsi", *, fence: bool = True) -> Report:
    """`bsi hooks status [--no-sandbox]`: read-only."""
    path = settings_path(root, local)
    return status_of(path, load(path), program, fence=fence)


# ---------------------------------------------------------------------------------------------
# .mcp.json
# ---------------------------------------------------------------------------------------------
def mcp_install(root: str | os.PathLike[str], program: str = "bsi") -> Report:
    """`bsi mcp install`: the `bsi` server in `.mcp.json` (other servers, and keys the user added to ours, kept)."""
    path = Path(root) / ".mcp.json"
    return put_mcp_server(path, load(path), program, {"type": "stdio"})

"""`bsi hooks install|uninstall|status` and `bsi mcp install`: merging our entries into the agent's settings.

`.claude/settings.json` (or `settings.local.json`) and `.mcp.json` belong to
the user: every foreign key, hook and server is kept as it is; our own
entries (a hook whose command runs `bsi … hook EVENT`, the `bsi` MCP server,
our `permissions.deny` rules) are replaced in place. A second run changes
nothing. A file that is not valid JSON is refused (exit 65) and left untouched.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brain_tui.core.errors import InvalidData

#: One hook per event (Claude Code event name, matcher or None, our kebab-case event).
HOOK_EVENTS: tuple[tuple[str, str | None, str], ...] = (
    ("PreToolUse", "Write|Edit|MultiEdit|NotebookEdit", "pre-tool-use"),
    ("PostToolUse", "Write|Edit|MultiEdit|NotebookEdit|Bash", "post-tool-use"),
    ("SessionStart", "startup|resume|clear|compact", "session-start"),
    ("UserPromptSubmit", None, "user-prompt-submit"),
    ("Stop", None, "stop"),
    ("Notification", None, "notification"),
    ("SessionEnd", None, "session-end"),
)
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
MCP_SERVER_NAME = "bsi"


@dataclass
class Report:
    """What an install, uninstall or status found or did.

    Attributes:
        path: the settings file.
        action: `installed`, `updated`, `unchanged`, `removed`, `absent` (uninstall with nothing to remove)
            or `status`.
        missing: our entries that are not in the file.
        outdated: our entries present with another command, matcher or timeout.
        resolves: whether the command's program is found on PATH (None when not checked).
    """

    path: str
    action: str
    missing: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    resolves: bool | None = None
    command: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi hooks status --json` (and the install/uninstall answers)."""
        return {"path": self.path, "action": self.action, "missing": self.missing, "outdated": self.outdated,
                "installed": not self.missing and not self.outdated, "command": self.command,
                "resolves": self.resolves}


def settings_path(root: str | os.PathLike[str], local: bool) -> Path:
    """`.claude/settings.json`, or `.claude/settings.local.json` with `--local`."""
    return Path(root) / ".claude" / ("settings.local.json" if local else "settings.json")


def load(path: Path) -> dict[str, Any]:
    """The settings object ({} when the file does not exist).

    Raises:
        InvalidData: not valid JSON, or not a JSON object (exit 65; the file is left untouched).
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InvalidData(f"{path} cannot be read: {exc.strerror}") from None
    try:
        data = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError) as exc:
        raise InvalidData(f"{path} is not valid JSON ({str(exc)[:120]}): fix it by hand; nothing was changed") \
            from None
    if not isinstance(data, dict):
        raise InvalidData(f"{path} is not a JSON object: fix it by hand; nothing was changed")
    return data


def render(data: dict[str, Any]) -> str:
    """The file's text: two-space indent, UTF-8, one final newline (stable: a second run compares equal)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def save(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (temp file, fsync, rename)."""
    from brain_tui.core.yamlio import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, render(data))


def hook_command(program: str, event: str, agent: str = "claude") -> str:
    """The command line of one hook (`bsi hook pre-tool-use`)."""
    suffix = "" if agent == "claude" else f" --agent {agent}"
    return f"{program} hook {event}{suffix}"


def is_ours(hook: Any) -> str | None:
    """The event of one of our hook objects (`{"type": "command", "command": "… bsi … hook EVENT"}`), else None."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return None
    words = hook["command"].split()
    for index, word in enumerate(words[:-2]):
        if os.path.basename(word) == "bsi" or word.endswith("brain_tui.cli.main"):
            rest = words[index + 1:]
            if "hook" in rest and rest.index("hook") + 1 < len(rest):
                return rest[rest.index("hook") + 1]
    return None


def _wanted(program: str) -> dict[str, tuple[str | None, dict[str, Any]]]:
    return {name: (matcher, {"type": "command", "command": hook_command(program, event), "timeout": HOOK_TIMEOUT_S})
            for name, matcher, event in HOOK_EVENTS}


def _hooks_table(data: dict[str, Any], path: Path, create: bool) -> dict[str, Any] | None:
    table = data.get("hooks")
    if table is None:
        if not create:
            return None
        table = data["hooks"] = {}
    if not isinstance(table, dict):
        raise InvalidData(f"{path}: \"hooks\" is not a JSON object: fix it by hand; nothing was changed")
    return table


def _find(groups: Any, event: str) -> list[tuple[int, int]]:
    """(group index, hook index) of each of our hooks for `event` in one event's list."""
    found: list[tuple[int, int]] = []
    if not isinstance(groups, list):
        return found
    for g, group in enumerate(groups):
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(hooks, list):
            found.extend((g, h) for h, hook in enumerate(hooks) if is_ours(hook) == event)
    return found


def merge_hooks(data: dict[str, Any], program: str, path: Path) -> dict[str, Any]:
    """`data` with our hook entries in place (replaced where they are, appended where missing) and the deny rules."""
    data = json.loads(json.dumps(data))
    table = _hooks_table(data, path, create=True)
    assert table is not None
    for (name, (matcher, hook)), (_n, _m, event) in zip(_wanted(program).items(), HOOK_EVENTS, strict=True):
        groups = table.get(name)
        if groups is None:
            groups = table[name] = []
        if not isinstance(groups, list):
            raise InvalidData(f"{path}: hooks.{name} is not a list: fix it by hand; nothing was changed")
        found = _find(groups, event)
        if not found:
            group: dict[str, Any] = {"matcher": matcher, "hooks": [hook]} if matcher else {"hooks": [hook]}
            groups.append(group)
            continue
        g, h = found[0]
        groups[g]["hooks"][h] = hook
        if matcher and len(groups[g]["hooks"]) == 1:
            groups[g]["matcher"] = matcher
        for g2, h2 in reversed(found[1:]):  # a duplicate of ours: one entry per event
            del groups[g2]["hooks"][h2]
        table[name] = [grp for grp in groups if not (isinstance(grp, dict) and grp.get("hooks") == [])]
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise InvalidData(f"{path}: \"permissions\" is not a JSON object: fix it by hand; nothing was changed")
    deny = permissions.setdefault("deny", [])
    if not isinstance(deny, list):
        raise InvalidData(f"{path}: permissions.deny is not a list: fix it by hand; nothing was changed")
    for rule in DENY_RULES:
        if rule not in deny:
            deny.append(rule)
    return data


def remove_hooks(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """`data` without any of our hooks or deny rules (empty containers we leave behind are removed)."""
    data = json.loads(json.dumps(data))
    table = _hooks_table(data, path, create=False)
    if table is not None:
        for name in list(table):
            groups = table[name]
            if not isinstance(groups, list):
                continue
            kept = []
            for group in groups:
                hooks = group.get("hooks") if isinstance(group, dict) else None
                if isinstance(hooks, list):
                    rest = [hook for hook in hooks if is_ours(hook) is None]
                    if not rest and hooks:
                        continue
                    group = {**group, "hooks": rest}
                kept.append(group)
            if kept:
                table[name] = kept
            else:
                del table[name]
        if not table:
            del data["hooks"]
    permissions = data.get("permissions")
    if isinstance(permissions, dict) and isinstance(permissions.get("deny"), list):
        permissions["deny"] = [rule for rule in permissions["deny"] if rule not in DENY_RULES]
        if not permissions["deny"]:
            del permissions["deny"]
        if not permissions:
            del data["permissions"]
    return data


def install(root: str | os.PathLike[str], local: bool, program: str = "bsi") -> Report:
    """`bsi hooks install [--local]`: merge, write atomically when something changed."""
    path = settings_path(root, local)
    before = load(path)
    after = merge_hooks(before, program, path)
    report = status_of(path, after, program)
    if after == before and path.exists():
        report.action = "unchanged"
        return report
    save(path, after)
    report.action = "updated" if _find_any(before) else "installed"
    return report


def _find_any(data: dict[str, Any]) -> bool:
    table = data.get("hooks")
    if not isinstance(table, dict):
        return False
    return any(_find(groups, event) for _n, _m, event in HOOK_EVENTS for groups in table.values())


def uninstall(root: str | os.PathLike[str], local: bool) -> Report:
    """`bsi hooks uninstall [--local]`: remove exactly our entries."""
    path = settings_path(root, local)
    before = load(path)
    after = remove_hooks(before, path)
    if after == before:
        return Report(str(path), "absent")
    save(path, after)
    return Report(str(path), "removed")


def status_of(path: Path, data: dict[str, Any], program: str = "bsi") -> Report:
    """What of ours is in `data`: missing and outdated entries, and whether the command resolves."""
    report = Report(str(path), "status", command=hook_command(program, "EVENT"))
    table = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for (name, (matcher, hook)), (_n, _m, event) in zip(_wanted(program).items(), HOOK_EVENTS, strict=True):
        groups = table.get(name) if isinstance(table, dict) else None
        found = _find(groups, event)
        if not found:
            report.missing.append(f"{name}: {event}")
            continue
        g, h = found[0]
        assert isinstance(groups, list)
        present = groups[g]["hooks"][h]
        if present != hook or (matcher and groups[g].get("matcher") != matcher):
            report.outdated.append(f"{name}: {event}")
    permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    for rule in DENY_RULES:
        if not isinstance(deny, list) or rule not in deny:
            report.missing.append(f"permissions.deny: {rule}")
    report.resolves = resolves(program)
    return report


def status(root: str | os.PathLike[str], local: bool, program: str = "bsi") -> Report:
    """`bsi hooks status`: read-only."""
    path = settings_path(root, local)
    return status_of(path, load(path), program)


def resolves(program: str) -> bool:
    """Whether the hook's program is found the way a shell would find it (PATH, or a path to an executable)."""
    first = program.split()[0] if program.split() else ""
    if os.sep in first:
        return os.path.isfile(first) and os.access(first, os.X_OK)
    return shutil.which(first) is not None


# ---------------------------------------------------------------------------------------------
# .mcp.json
# ---------------------------------------------------------------------------------------------
def mcp_install(root: str | os.PathLike[str], program: str = "bsi") -> Report:
    """`bsi mcp install`: the `bsi` server in `.mcp.json` (other servers kept, ours replaced in place)."""
    path = Path(root) / ".mcp.json"
    before = load(path)
    after = json.loads(json.dumps(before))
    servers = after.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InvalidData(f"{path}: \"mcpServers\" is not a JSON object: fix it by hand; nothing was changed")
    words = program.split() or ["bsi"]
    servers[MCP_SERVER_NAME] = {"type": "stdio", "command": words[0], "args": [*words[1:], "mcp"]}
    report = Report(str(path), "unchanged", command=" ".join([*words, "mcp"]), resolves=resolves(program))
    if after == before and path.exists():
        return report
    save(path, after)
    report.action = "updated" if isinstance(before.get("mcpServers"), dict) and \
        MCP_SERVER_NAME in before["mcpServers"] else "installed"
    return report

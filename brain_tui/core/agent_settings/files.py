"""What every agent-settings installer shares: the report, JSON in and out, and merging hook tables.

Claude Code, Gemini CLI and Codex all keep hooks as ``{"hooks": {EVENT: [{"matcher": M, "hooks": [{"type": "command",
"command": C, "timeout": T}]}]}}``; only the event names, the matchers, the timeout's unit and the file differ. A hook
is ours when its command runs ``bsi … hook EVENT``: ours are replaced in place, every other entry is kept as it is.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brain_tui.core.errors import InvalidData
from brain_tui.core.record import field, record

#: A UTF-16 surrogate left alone by `json.loads` (``"\\ud800"``, valid JSON): UTF-8 cannot write it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

#: One hook: (the client's event name, its matcher or None, our kebab-case event).
HookSpec = tuple[str, str | None, str]

#: Our hook events, whether they are about a tool, and each agent's name for them (None: it has no such
#: event), in the order they are installed. Codex takes Claude Code's names.
EVENT_NAMES: tuple[tuple[str, bool, str, str | None, str | None], ...] = (
    # ours               tool   Claude Code          Codex               Gemini CLI
    ("pre-tool-use",       True,  "PreToolUse",        "PreToolUse",       "BeforeTool"),
    ("post-tool-use",      True,  "PostToolUse",       "PostToolUse",      "AfterTool"),
    ("session-start",      False, "SessionStart",      "SessionStart",     "SessionStart"),
    ("user-prompt-submit", False, "UserPromptSubmit",  "UserPromptSubmit", "BeforeAgent"),
    ("stop",               False, "Stop",              "Stop",             "AfterAgent"),
    ("notification",       False, "Notification",      None,               "Notification"),
    ("permission-request", False, "PermissionRequest", None,               None),
    ("session-end",        False, "SessionEnd",        None,               "SessionEnd"),
)
_AGENT_COLUMN = {"claude": 2, "codex": 3, "gemini": 4}
#: The name of our MCP server in every client's settings.
MCP_SERVER_NAME = "bsi"
#: The largest settings file read: far above any a client writes, far below what would exhaust memory.
MAX_SETTINGS_BYTES = 64 * 1024 * 1024


def hook_events(agent: str, tools: str, session_start: str | None = None) -> tuple[HookSpec, ...]:
    """The hooks `agent` (``claude``, ``codex`` or ``gemini``) gets: one per event it knows (`EVENT_NAMES`), the
    tool events matched by `tools` (the agent's write and shell tools), ``session-start`` by `session_start` (None:
    every start)."""
    column = _AGENT_COLUMN[agent]
    return tuple((str(row[column]), tools if row[1] else session_start if row[0] == "session-start" else None, row[0])
                 for row in EVENT_NAMES if row[column] is not None)


@record(frozen=False)
class Report:
    """What an install, uninstall or status found or did.

    Attributes:
        path: the settings file.
        action: `installed`, `updated`, `unchanged`, `removed`, `absent` (uninstall with nothing to remove)
            or `status`.
        missing: our entries that are not in the file.
        outdated: our entries present with another command, matcher or timeout (or a weaker value).
        resolves: whether the command's program is found on PATH (None when not checked).
        command: the hook's (or server's) command line.
        notes: lines for the user (what else to do, what was kept).
        extra: more JSON fields (the sandbox's dependencies, the other files written).
    """

    path: str
    action: str
    missing: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    resolves: bool | None = None
    command: str = ""
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi hooks status --json` (and the install/uninstall answers)."""
        return {"path": self.path, "action": self.action, "missing": self.missing, "outdated": self.outdated,
                "installed": not self.missing and not self.outdated, "command": self.command,
                "resolves": self.resolves, "notes": self.notes, **self.extra}


def read_settings(path: Path) -> bytes | None:
    """The bytes of a settings file (None when it does not exist). InvalidData (exit 65; the file is left untouched)
    when it cannot be read, is no regular file (a FIFO is never waited on) or is larger than `MAX_SETTINGS_BYTES`."""
    from brain_tui.core.records.yamlio import read_capped

    try:
        raw = read_capped(path, MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidData(f"{path} cannot be read: {exc.strerror or exc}") from None
    if raw is None:  # a folder says so, as reading it did
        why = os.strerror(errno.EISDIR) if path.is_dir() else "not a regular file"
        raise InvalidData(f"{path} cannot be read: {why}")
    if len(raw) > MAX_SETTINGS_BYTES:
        raise InvalidData(f"{path} cannot be read: larger than {MAX_SETTINGS_BYTES // 2**20} MiB")
    return raw


def _not_json(name: str) -> Any:
    """`NaN`, `Infinity`, `-Infinity`: Python's reader takes them, JSON does not (RFC 8259), nor do the agents."""
    raise ValueError(f"{name} is not a JSON value")


def load(path: Path) -> dict[str, Any]:
    """The settings object ({} when the file does not exist); InvalidData (exit 65; the file is left untouched) when
    it is not valid JSON, or not a JSON object, or does not read (`read_settings`)."""
    raw = read_settings(path)
    if raw is None:
        return {}
    try:
        data = json.loads(raw, parse_constant=_not_json) if raw.strip() else {}
    except (ValueError, RecursionError) as exc:
        raise InvalidData(f"{path} is not valid JSON ({str(exc)[:120]}): fix it by hand; nothing was changed") \
            from None
    if not isinstance(data, dict):
        raise InvalidData(f"{path} is not a JSON object: fix it by hand; nothing was changed")
    return data


def render(data: dict[str, Any]) -> str:
    """The file's text: two-space indent, UTF-8, one final newline (stable: a second run compares equal).

    A lone surrogate (``"\\ud800"`` in a foreign entry: valid JSON, no UTF-8 text) stays the escape it was read
    from: it can only stand inside a JSON string, where its escape means the same.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def save_text(path: Path, text: str) -> None:
    """Write `text` atomically (temp file, fsync, rename), creating the folder."""
    from brain_tui.core.records.yamlio import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


def record_key(root: Path, settings: Path) -> str:
    """How a record of this clone (`.brain/`) names a settings file: relative to the brain, else (a file outside
    it, Codex's in $CODEX_HOME) its absolute path."""
    try:
        return settings.relative_to(root).as_posix()
    except ValueError:
        return str(settings)


def save(path: Path, data: dict[str, Any]) -> None:
    """Write a JSON settings object atomically."""
    save_text(path, render(data))


def copy(data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON object (merges never change what they were given)."""
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def refuse(path: Path, what: str) -> InvalidData:
    """The one refusal line for a settings file whose shape is not what the client reads (exit 65)."""
    return InvalidData(f"{path}: {what}: fix it by hand; nothing was changed")


def hook_command(program: str, event: str, agent: str = "claude") -> str:
    """The command line of one hook (`bsi hook pre-tool-use`, `bsi hook pre-tool-use --agent gemini`)."""
    suffix = "" if agent == "claude" else f" --agent {agent}"
    return f"{program} hook {event}{suffix}"


def is_ours(hook: Any) -> str | None:
    """The event of one of our hook objects (`{"type": "command", "command": "… bsi … hook EVENT"}`), else None."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return None
    words = command_words(hook["command"])
    for index, word in enumerate(words[:-2]):
        if runs_bsi(word):
            rest = words[index + 1:]
            if "hook" in rest and rest.index("hook") + 1 < len(rest):
                return rest[rest.index("hook") + 1]
    return None


def runs_bsi(word: str) -> bool:
    """Whether one word of a command line is bsi (`bsi`, a path to it, or `python -m brain_tui.cli.main`)."""
    return os.path.basename(word) == "bsi" or word.endswith("brain_tui.cli.main")


def command_words(program: str) -> list[str]:
    """The words of a command line as a shell splits it (`--bsi "'/opt/my tools/bsi'"`: one word), so the MCP
    entries (command and args) run what the hooks' shell runs; an unbalanced quote splits on spaces alone."""
    import shlex

    try:
        return shlex.split(program)
    except ValueError:
        return program.split()


def resolves(program: str) -> bool:
    """Whether the hook's program is found the way a shell would find it (PATH, or a path to an executable)."""
    words = command_words(program)
    first = words[0] if words else ""
    if os.sep in first:
        return os.path.isfile(first) and os.access(first, os.X_OK)
    return shutil.which(first) is not None


def hooks_table(data: dict[str, Any], path: Path, create: bool) -> dict[str, Any] | None:
    """The `hooks` object of a settings object (created when asked), None when absent; InvalidData (exit 65) when
    `hooks` is not an object."""
    table = data.get("hooks")
    if table is None:
        if not create:
            return None
        table = data["hooks"] = {}
    if not isinstance(table, dict):
        raise refuse(path, "\"hooks\" is not a JSON object")
    return table


def find(groups: Any, event: str) -> list[tuple[int, int]]:
    """(group index, hook index) of each of our hooks for `event` in one event's list."""
    found: list[tuple[int, int]] = []
    if not isinstance(groups, list):
        return found
    for g, group in enumerate(groups):
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(hooks, list):
            found.extend((g, h) for h, hook in enumerate(hooks) if is_ours(hook) == event)
    return found


def wanted_hook(program: str, event: str, agent: str, timeout: int) -> dict[str, Any]:
    """One of our hook objects."""
    return {"type": "command", "command": hook_command(program, event, agent), "timeout": timeout}


def merge_event_hooks(data: dict[str, Any], specs: Sequence[HookSpec], path: Path, *, program: str, agent: str,
                      timeout: int) -> None:
    """Put our hooks in `data` (in place): replaced where they are, appended where missing, one per event.
    InvalidData (exit 65) when `hooks` or one event's list has a shape the client does not read."""
    table = hooks_table(data, path, create=True)
    assert table is not None
    for name, matcher, event in specs:
        hook = wanted_hook(program, event, agent, timeout)
        groups = table.get(name)
        if groups is None:
            groups = table[name] = []
        if not isinstance(groups, list):
            raise refuse(path, f"hooks.{name} is not a list")
        found = find(groups, event)
        if not found:
            groups.append({"matcher": matcher, "hooks": [hook]} if matcher else {"hooks": [hook]})
            continue
        g, h = found[0]
        groups[g]["hooks"][h] = hook
        if matcher and len(groups[g]["hooks"]) == 1:
            groups[g]["matcher"] = matcher
        for g2, h2 in reversed(found[1:]):  # a duplicate of ours: one entry per event
            del groups[g2]["hooks"][h2]
        table[name] = [grp for grp in groups if not (isinstance(grp, dict) and grp.get("hooks") == [])]


def remove_event_hooks(data: dict[str, Any], path: Path) -> None:
    """Take every one of our hooks out of `data` (in place); empty groups and tables we leave are removed."""
    table = hooks_table(data, path, create=False)
    if table is None:
        return
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


def server_fields(program: str) -> dict[str, Any]:
    """The `command` and `args` of our MCP server entry: the words of `PROGRAM mcp`."""
    words = command_words(program) or ["bsi"]
    return {"command": words[0], "args": [*words[1:], "mcp"]}


def is_our_server(entry: Any, program: str) -> bool:
    """Whether a server entry is bsi's: its command and args run `… bsi … mcp`, or `PROGRAM mcp` as asked."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        return False
    line = [entry["command"], *args]
    wanted = server_fields(program)
    return line == [wanted["command"], *wanted["args"]] or (line[-1] == "mcp" and any(map(runs_bsi, line[:-1])))


def merge_owned(entry: Any, owned: dict[str, Any]) -> None:
    """Set the keys bsi owns in its server entry (in place; a tomlkit table keeps its layout): each key of `owned`
    that differs is written, every other key of the entry (an `env`, a timeout, a trust flag) is the user's and
    is kept."""
    for key, value in owned.items():
        if entry.get(key) != value:
            entry[key] = value


def put_mcp_server(path: Path, before: dict[str, Any], program: str, fields: dict[str, Any]) -> Report:
    """Write our server into the `mcpServers` object of the JSON settings `before` read from `path` (other servers
    kept): `fields`, then the command running `PROGRAM mcp`, merged into bsi's own entry (`merge_owned`: the keys
    the user added are kept); an entry under our name that is not bsi's (`is_our_server`) is replaced whole. The
    report's action is `unchanged`, `installed` or `updated`; InvalidData (exit 65) when `mcpServers` is not an
    object."""
    after = copy(before)
    servers = after.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise refuse(path, "\"mcpServers\" is not a JSON object")
    if not is_our_server(servers.get(MCP_SERVER_NAME), program):
        servers[MCP_SERVER_NAME] = {}
    merge_owned(servers[MCP_SERVER_NAME], {**fields, **server_fields(program)})
    report = Report(str(path), "unchanged", command=f"{program} mcp", resolves=resolves(program))
    if after == before and path.exists():
        return report
    save(path, after)
    report.action = "updated" if isinstance(before.get("mcpServers"), dict) and \
        MCP_SERVER_NAME in before["mcpServers"] else "installed"
    return report


def has_any(data: dict[str, Any], specs: Sequence[HookSpec]) -> bool:
    """Whether any of our hooks is in `data` (tells "updated" from "installed")."""
    table = data.get("hooks")
    if not isinstance(table, dict):
        return False
    return any(find(groups, event) for _n, _m, event in specs for groups in table.values())


def event_status(report: Report, data: dict[str, Any], specs: Sequence[HookSpec], *, program: str, agent: str,
                 timeout: int) -> None:
    """Add to `report` each of our hooks that is missing or differs (command, matcher, timeout)."""
    table = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for name, matcher, event in specs:
        groups = table.get(name) if isinstance(table, dict) else None
        found = find(groups, event)
        if not found:
            report.missing.append(f"{name}: {event}")
            continue
        g, h = found[0]
        assert isinstance(groups, list)
        present = groups[g]["hooks"][h]
        if present != wanted_hook(program, event, agent, timeout) or (matcher and groups[g].get("matcher")
                                                                      != matcher):
            report.outdated.append(f"{name}: {event}")

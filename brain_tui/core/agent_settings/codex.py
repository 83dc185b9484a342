"""`bsi hooks install|uninstall|status --agent codex` and `bsi mcp install --agent codex`.

Codex CLI reads its settings from `$CODEX_HOME` (default `~/.codex`): the MCP servers in `config.toml`
(`[mcp_servers.bsi]` with `command`, `args`, `cwd`), the hooks in `hooks.json` (Claude Code's shape and event names;
the edit tool is `apply_patch`, the shell tools `exec_command` (``Bash`` in its hook events) and `shell`, and
`write_stdin` types into a command `exec_command` left running). Both files are the user's and hold every
project: foreign keys, comments and layout of `config.toml` are kept (tomlkit edits it in place). Codex asks the user
to review new hooks before it runs them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brain_tui.core.agent_settings import created
from brain_tui.core.agent_settings.files import (
    MCP_SERVER_NAME,
    Report,
    copy,
    event_status,
    has_any,
    hook_command,
    hook_events,
    load,
    merge_event_hooks,
    merge_owned,
    read_settings,
    refuse,
    remove_event_hooks,
    resolves,
    save,
    save_text,
    server_fields,
)
from brain_tui.core.errors import InvalidData

AGENT = "codex"
#: The edit tool, the shell tools (Codex names `exec_command` ``Bash`` in its hook events), `write_stdin` (text typed
#: into a running command), and every tool of another MCP server (``mcp__<server>__<tool>``) but bsi's own, spelled
#: without a lookahead (which not every regular expression engine has): bsi's tool names hold no ``__`` and start
#: with no ``_``, so ``mcp__bsi__x__write_file`` (a server named ``bsi__x``) is another server's.
TOOL_MATCHER = ("Bash|apply_patch|exec_command|shell|write_stdin|"
                "mcp__([^b]|b[^s]|bs[^i]|bsi[^_]|bsi_[^_]|bsi__(_|.*__)).*")
HOOK_EVENTS = hook_events(AGENT, TOOL_MATCHER)
HOOK_TIMEOUT_S = 10


def codex_home() -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex"))


def hooks_path() -> Path:
    """Codex's `hooks.json`."""
    return codex_home() / "hooks.json"


def config_path() -> Path:
    """Codex's `config.toml`."""
    return codex_home() / "config.toml"


def install(program: str = "bsi", root: str | os.PathLike[str] | None = None) -> Report:
    """Merge our hooks into Codex's `hooks.json` (a file it creates is remembered in the brain at `root`, for
    `uninstall`)."""
    path = hooks_path()
    before = load(path)
    after = copy(before)
    merge_event_hooks(after, HOOK_EVENTS, path, program=program, agent=AGENT, timeout=HOOK_TIMEOUT_S)
    report = status_of(path, after, program)
    if after == before and path.exists():
        report.action = "unchanged"
        return report
    created.note_creation(None if root is None else Path(root), path)
    save(path, after)
    report.action = "updated" if has_any(before, HOOK_EVENTS) else "installed"
    report.notes.append("Codex asks you to review new hooks before it runs them (its hook trust review)")
    return report


def uninstall(root: str | os.PathLike[str] | None = None) -> Report:
    """Remove exactly our hooks from Codex's `hooks.json`; a file the install from the brain at `root` created that
    holds nothing else then goes (`created`)."""
    path = hooks_path()
    before = load(path)
    after = copy(before)
    remove_event_hooks(after, path)
    if created.settle(None if root is None else Path(root), path, after):
        return Report(str(path), "removed", notes=[f"{path}: {created.DELETED}"])
    if after == before:
        return Report(str(path), "absent")
    save(path, after)
    return Report(str(path), "removed")


def status_of(path: Path, data: dict[str, Any], program: str = "bsi") -> Report:
    """What of ours is in `data`, and whether the command resolves."""
    report = Report(str(path), "status", command=hook_command(program, "EVENT", AGENT))
    event_status(report, data, HOOK_EVENTS, program=program, agent=AGENT, timeout=HOOK_TIMEOUT_S)
    report.resolves = resolves(program)
    return report


def status(program: str = "bsi") -> Report:
    """`bsi hooks status --agent codex`: read-only."""
    path = hooks_path()
    return status_of(path, load(path), program)


# -- config.toml -------------------------------------------------------------------------------
def _load_toml(path: Path) -> Any:
    """The TOML document (tomlkit, style-preserving); an empty one when the file does not exist. InvalidData (exit
    65; the file is left untouched) when it is not valid TOML."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    raw = read_settings(path)  # InvalidData when it does not read; a FIFO is never waited on
    if raw is None:
        return tomlkit.document()
    try:
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as `read_text` read it
    except UnicodeDecodeError as exc:
        raise InvalidData(f"{path} cannot be read: {exc}") from None
    try:
        return tomlkit.parse(text)
    except (TOMLKitError, ValueError) as exc:
        raise InvalidData(f"{path} is not valid TOML ({str(exc)[:120]}): fix it by hand; nothing was changed") \
            from None


#: The seconds Codex gives `bsi mcp` to answer `initialize` and `tools/list`, written when the entry names none (the
#: user's own value is kept); past it Codex offers no bsi tool for the whole session.
STARTUP_TIMEOUT_SEC = 30


def _seconds(value: object) -> bool:
    """Whether Codex reads `value` as a timeout: a finite number, not negative (not a string, a boolean, `inf`, `nan`:
    each makes Codex refuse to load config.toml)."""
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def mcp_install(root: str | os.PathLike[str], program: str = "bsi") -> Report:
    """`[mcp_servers.bsi]` in Codex's `config.toml` (`command`, `args`, `cwd` = the brain); the rest kept.
    InvalidData (exit 65) when the file is not valid TOML, or `mcp_servers` / `mcp_servers.bsi` is not a table."""
    import tomlkit

    path = config_path()
    doc = _load_toml(path)
    before = doc.as_string()
    wanted = {**server_fields(program), "cwd": str(Path(root).resolve())}
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    if not isinstance(servers, dict):
        raise refuse(path, "mcp_servers is not a table")
    ours = servers.get(MCP_SERVER_NAME)
    existed = ours is not None
    if ours is None:
        ours = tomlkit.table()
        servers[MCP_SERVER_NAME] = ours
    if not isinstance(ours, dict):
        raise refuse(path, f"mcp_servers.{MCP_SERVER_NAME} is not a table")
    timeout = ours.get("startup_timeout_sec")
    if timeout is not None and not _seconds(timeout):  # Codex then refuses its whole config.toml
        raise refuse(path, f"mcp_servers.{MCP_SERVER_NAME}.startup_timeout_sec is not a number of seconds Codex "
                           f"reads ({str(timeout)[:40]!r})")
    merge_owned(ours, wanted)  # the keys the user added (`env`, `startup_timeout_sec`, …) are kept
    if "startup_timeout_sec" not in ours:  # Codex's own 10 s is short for a Python server on a loaded machine
        ours["startup_timeout_sec"] = STARTUP_TIMEOUT_SEC
    report = Report(str(path), "unchanged", command=f"{program} mcp", resolves=resolves(program))
    after = doc.as_string()
    if after == before and path.exists():
        return report
    save_text(path, after)
    report.action = "updated" if existed else "installed"
    report.notes.append(f"Codex starts `bsi mcp` in {wanted['cwd']} (config.toml is for every project)")
    return report

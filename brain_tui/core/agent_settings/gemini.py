"""`bsi hooks install|uninstall|status --agent gemini` and `bsi mcp install --agent gemini`.

Gemini CLI reads the project's `.gemini/settings.json`: hooks under `hooks` (its own event names: `BeforeTool`,
`AfterTool`, `BeforeAgent`, `AfterAgent`, `SessionStart`, `SessionEnd`, `Notification`; timeouts in milliseconds) and
servers under `mcpServers`. Project settings count only in a trusted folder (`~/.gemini/trustedFolders.json`); that
file is the user's, written only with `--trust`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brain_tui.core.agent_settings import created
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
    remove_event_hooks,
    resolves,
    save,
)
from brain_tui.core.errors import InvalidData
from brain_tui.core.sessions import own_tools

AGENT = "gemini"
#: Gemini CLI's write tools, its shell tool, and every tool of another MCP server (``mcp_<server>_<tool>``) but
#: bsi's own (``mcp_bsi_<one of its tools>``: a server named ``bsi_files`` gives ``mcp_bsi_files_…``, another's),
#: checked before and recorded after they run. Gemini CLI searches the name with a JavaScript regular expression.
TOOL_MATCHER = f"^(write_file|replace|run_shell_command|mcp_(?!bsi_(?:{own_tools.own_names()})$).*)$"
HOOK_EVENTS = hook_events(AGENT, TOOL_MATCHER)
#: Gemini CLI's hook timeouts are in milliseconds.
HOOK_TIMEOUT_MS = 10_000
TRUSTED = "TRUST_FOLDER"


def settings_path(root: str | os.PathLike[str]) -> Path:
    """`.gemini/settings.json` of the brain."""
    return Path(root) / ".gemini" / "settings.json"


def trusted_folders_path() -> Path:
    """`~/.gemini/trustedFolders.json` (the user's own, for every project)."""
    return Path(os.path.expanduser("~")) / ".gemini" / "trustedFolders.json"


def is_trusted(root: str | os.PathLike[str]) -> bool:
    """Whether Gemini CLI trusts the brain's folder (itself, or a parent marked TRUST_PARENT/TRUST_FOLDER)."""
    try:
        folders = load(trusted_folders_path())
    except InvalidData:  # an unreadable trust file reads as "not trusted"
        return False
    here = Path(root).resolve()
    for name, level in folders.items():
        folder = Path(name)
        if level == TRUSTED and (folder == here or folder in here.parents):
            return True
        if level == "TRUST_PARENT" and (folder.parent == here or folder.parent in here.parents):
            return True
    return False


def trust(root: str | os.PathLike[str]) -> str:
    """Mark the brain's folder trusted in `~/.gemini/trustedFolders.json` (`--trust`); the action taken."""
    path = trusted_folders_path()
    before = load(path)
    key = str(Path(root).resolve())
    if before.get(key) == TRUSTED:
        return "unchanged"
    save(path, {**before, key: TRUSTED})
    return "trusted"


def install(root: str | os.PathLike[str], program: str = "bsi", *, trust_folder: bool = False) -> Report:
    """Merge our hooks into `.gemini/settings.json` (and trust the folder with `trust_folder`)."""
    path = settings_path(root)
    before = load(path)
    if trust_folder:
        load(trusted_folders_path())  # a trust file that does not parse is refused before anything is written
    after = copy(before)
    merge_event_hooks(after, HOOK_EVENTS, path, program=program, agent=AGENT, timeout=HOOK_TIMEOUT_MS)
    report = status_of(root, path, after, program)
    if after == before and path.exists():
        report.action = "unchanged"
    else:
        created.note_creation(Path(root), path)
        save(path, after)
        report.action = "updated" if has_any(before, HOOK_EVENTS) else "installed"
    _trust_step(root, report, trust_folder)
    return report


def _trust_step(root: str | os.PathLike[str], report: Report, trust_folder: bool) -> None:
    if trust_folder:
        done = trust(root)
        report.notes.append(f"{trusted_folders_path()}: {done} ({Path(root).resolve()})")
        report.extra["trusted"] = True
    elif not report.extra.get("trusted"):
        report.notes.append("Gemini CLI ignores project settings in a folder it does not trust: trust it when "
                            "Gemini CLI asks, or run again with --trust to write ~/.gemini/trustedFolders.json")


def uninstall(root: str | os.PathLike[str]) -> Report:
    """Remove exactly our hooks from `.gemini/settings.json` (the folder's trust is left as it is); a file install
    created that holds nothing else then goes (`created`)."""
    path = settings_path(root)
    before = load(path)
    after = copy(before)
    remove_event_hooks(after, path)
    report = Report(str(path), "absent" if after == before else "removed")
    if created.settle(Path(root), path, after):
        report.action = "removed"
        report.notes.append(f"{path}: {created.DELETED}")
    elif after != before:
        save(path, after)
    if is_trusted(root):
        report.notes.append(f"the folder's trust in {trusted_folders_path()} is left as it is (it is yours)")
    return report


def status_of(root: str | os.PathLike[str], path: Path, data: dict[str, Any], program: str = "bsi") -> Report:
    """What of ours is in `data`, whether the folder is trusted and whether the command resolves."""
    report = Report(str(path), "status", command=hook_command(program, "EVENT", AGENT))
    event_status(report, data, HOOK_EVENTS, program=program, agent=AGENT, timeout=HOOK_TIMEOUT_MS)
    report.extra["trusted"] = is_trusted(root)
    report.resolves = resolves(program)
    return report


def status(root: str | os.PathLike[str], program: str = "bsi") -> Report:
    """`bsi hooks status --agent gemini`: read-only."""
    path = settings_path(root)
    report = status_of(root, path, load(path), program)
    if not report.extra["trusted"]:
        report.notes.append(f"{Path(root).resolve()} is not trusted by Gemini CLI: its project settings are off "
                            "(`bsi hooks install --agent gemini --trust`)")
    return report


def mcp_install(root: str | os.PathLike[str], program: str = "bsi", *, trust_folder: bool = False) -> Report:
    """The `bsi` server in `.gemini/settings.json` `mcpServers` (other servers, and keys the user added to ours
    such as `timeout` or `trust`, kept)."""
    path = settings_path(root)
    before = load(path)
    if trust_folder:
        load(trusted_folders_path())
    report = put_mcp_server(path, before, program, {})
    report.extra["trusted"] = is_trusted(root)
    _trust_step(root, report, trust_folder)
    return report

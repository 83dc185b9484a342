"""Claude Code's OS sandbox as the fence of the protocol files (SPEC 21.3): merge, remove, check.

Claude Code runs every Bash command of the agent, and its children, inside an OS sandbox (bubblewrap + socat on Linux,
Seatbelt on macOS) when ``sandbox`` is enabled in its settings. With the protocol folders in
``sandbox.filesystem.denyWrite`` no shell spelling can write them: the file system is read-only there. The hooks and
the MCP server run outside the sandbox, so the agent's protocol actions go through them.

Merging keeps the user's own ``sandbox`` block: their keys (``network``, ``filesystem.allowWrite``, their own
``denyWrite`` entries, …) stay as they are; a fence key they set themselves is kept too, and reported when it weakens
the fence. What install added is remembered on this clone (``RECORD``), so removing takes out exactly that; where it
is not known (the file came from another clone) removing takes out the fence's denyWrite entries and the fence keys
holding the fence's value.
"""

from __future__ import annotations

import json
import platform
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import Any

from brain_tui.core.agent_settings.files import Report, record_key, refuse, save
from brain_tui.core.paths.layout import SANDBOX_RECORD
from brain_tui.core.records.state_json import read_state_json
from brain_tui.core.sessions.fence import FENCE_KEYS, PROTOCOL_DENY_WRITE

__all__ = ["DENY_WRITE", "FENCE_KEYS", "dependencies", "dependency_line", "fence_status", "merge_fence",
           "recorded", "remember", "remove_fence"]

#: The fence's switches and the protocol files, as `bsi hooks install` writes them (the rule is the core's).
DENY_WRITE = PROTOCOL_DENY_WRITE
#: What each missing Linux program is packaged as (Debian, Ubuntu).
LINUX_PACKAGES = {"bwrap": "bubblewrap", "socat": "socat"}


def _block(data: dict[str, Any], path: Path, create: bool) -> dict[str, Any] | None:
    block = data.get("sandbox")
    if block is None:
        if not create:
            return None
        block = data["sandbox"] = {}
    if not isinstance(block, dict):
        raise refuse(path, "\"sandbox\" is not a JSON object")
    return block


def _filesystem(block: dict[str, Any], path: Path, create: bool) -> dict[str, Any] | None:
    fs = block.get("filesystem")
    if fs is None:
        if not create:
            return None
        fs = block["filesystem"] = {}
    if not isinstance(fs, dict):
        raise refuse(path, "sandbox.filesystem is not a JSON object")
    return fs


def merge_fence(data: dict[str, Any], path: Path, deny_write: tuple[str, ...] = DENY_WRITE) -> list[str]:
    """Put the fence into `data` (in place), keeping every key of a `sandbox` block the user wrote; gives what was
    added (`enabled`, …, `denyWrite:./claims`, …): what `remove_fence` may take out again. InvalidData (exit 65) when
    `sandbox`, its `filesystem` or `denyWrite` has a shape Claude Code does not read."""
    added: list[str] = []
    block = _block(data, path, create=True)
    assert block is not None
    for key, value in FENCE_KEYS.items():
        if key not in block:
            block[key] = value
            added.append(key)
    fs = _filesystem(block, path, create=True)
    assert fs is not None
    deny = fs.setdefault("denyWrite", [])
    if not isinstance(deny, list):
        raise refuse(path, "sandbox.filesystem.denyWrite is not a list")
    for entry in deny_write:
        if entry not in deny:
            deny.append(entry)
            added.append(f"denyWrite:{entry}")
    return added


def remove_fence(data: dict[str, Any], added: Collection[str] | None = None) -> None:
    """Take the fence out of the settings `data` (in place): what install recorded adding (`merge_fence`), when still
    as it wrote it. When `added` is None (another clone installed it), every denyWrite entry of ours and every fence
    key holding our value. Whatever else the block holds is kept; a block (or `filesystem`) left empty is removed."""
    block = data.get("sandbox")
    if not isinstance(block, dict):
        return
    ours_deny = set(DENY_WRITE) if added is None else {item.split(":", 1)[1] for item in added
                                                       if item.startswith("denyWrite:")}
    fs = block.get("filesystem")
    if isinstance(fs, dict) and isinstance(fs.get("denyWrite"), list):
        fs["denyWrite"] = [entry for entry in fs["denyWrite"]  # a hand-written non-string entry is the user's
                           if not (isinstance(entry, str) and entry in ours_deny)]
        if not fs["denyWrite"]:
            del fs["denyWrite"]
        if not fs:
            del block["filesystem"]
    for key, value in FENCE_KEYS.items():
        if key in block and block[key] is value and (added is None or key in added):
            del block[key]
    if not block:
        del data["sandbox"]


# -- what install added, remembered on this clone ------------------------------------------------
#: `{settings file relative to the brain: [what merge_fence added]}` (local: `.brain/` is never committed).
RECORD = SANDBOX_RECORD


def recorded(root: Path, settings: Path) -> list[str] | None:
    """What install added to `settings` on this clone (None when it is not known here)."""
    data = read_state_json(root / RECORD)  # None: unreadable, no regular file (a FIFO: never waited on), not JSON
    items = data.get(record_key(root, settings)) if isinstance(data, dict) else None
    return [str(item) for item in items] if isinstance(items, list) else None


def remember(root: Path, settings: Path, added: list[str] | None) -> None:
    """Record what install added to `settings` (None forgets it); atomic, local only."""
    path = root / RECORD
    data = read_state_json(path)
    if not isinstance(data, dict):
        data = {}
    key = record_key(root, settings)
    if added is None:
        if key not in data:
            return
        del data[key]
    else:
        data[key] = added
    save(path, data)


def fence_status(report: Report, data: dict[str, Any]) -> None:
    """Add to `report` what of the fence is missing, and the user's values that weaken it."""
    block = data.get("sandbox")
    if not isinstance(block, dict):
        report.missing.append("sandbox")
        return
    for key, value in FENCE_KEYS.items():
        if key not in block:
            report.missing.append(f"sandbox.{key}")
        elif block[key] != value:
            report.outdated.append(f"sandbox.{key}: {json.dumps(block[key])} (yours, kept; the fence needs "
                                   f"{json.dumps(value)})")
    fs = block.get("filesystem")
    deny = fs.get("denyWrite") if isinstance(fs, dict) else None
    for entry in DENY_WRITE:
        if not isinstance(deny, list) or entry not in deny:
            report.missing.append(f"sandbox.filesystem.denyWrite: {entry}")


def dependencies(system: str | None = None) -> dict[str, Any]:
    """Whether this machine can run Claude Code's sandbox, and what to install when it cannot: ``{"platform",
    "ready", "missing": [programs], "install": hint or ""}``. Linux (and WSL2) needs ``bwrap`` and ``socat`` on PATH;
    macOS has Seatbelt built in; elsewhere there is no sandbox."""
    system = system or platform.system()
    if system == "Darwin":
        return {"platform": "macos", "ready": True, "missing": [], "install": ""}
    if system == "Linux":
        missing = [program for program in LINUX_PACKAGES if shutil.which(program) is None]
        hint = "apt install " + " ".join(LINUX_PACKAGES[p] for p in missing) if missing else ""
        return {"platform": "linux", "ready": not missing, "missing": missing, "install": hint}
    return {"platform": system.lower() or "unknown", "ready": False, "missing": [],
            "install": "Claude Code's sandbox runs on Linux, WSL2 and macOS only"}


def dependency_line(deps: dict[str, Any]) -> str:
    """One line for the user: the sandbox can run here, or what to install."""
    if deps["ready"]:
        where = "Seatbelt is built in" if deps["platform"] == "macos" else "bwrap and socat are on PATH"
        return f"sandbox: ready ({where})"
    if deps["missing"]:
        return (f"sandbox: {' and '.join(deps['missing'])} not on PATH: run `{deps['install']}` "
                "(with failIfUnavailable, Claude Code refuses to run Bash until they are)")
    return f"sandbox: not available here: {deps['install']}"

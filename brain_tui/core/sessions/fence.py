"""The OS fence of an agent's shell (SPEC 21.3): what Claude Code's sandbox lets it write.

Two fences, one rule set:

- every agent of the brain (`bsi hooks install`): the protocol files, and
  the settings that name programs run outside the sandbox (`.mcp.json`,
  `brain-compose.yml`…), are read-only to its shell (`PROTOCOL_DENY_WRITE`);
- a launched satellite (`bsi launch`, `claim_sandbox`): besides, only its
  claim's folder and file scopes are writable. Claude Code always lets the
  shell write its working folder (the brain), and a `denyWrite` entry wins
  over an `allowWrite` one, so the fence denies what lies *beside* the scopes:
  at the brain root and in each folder on the way down to a scope, every
  entry that is neither a scope nor on the way to one. A section scope
  (`file.md#Section`) opens its whole file to the shell; the section itself is
  checked by the hooks only. `.git` and `.claude` are left to Claude Code's own
fence (see `KEEP_WRITABLE`).

Paths in a settings file given with `claude --settings FILE` are read relative
to that file's folder, so the launch fence writes absolute ones (`//` + path,
Claude Code's spelling of an absolute path).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from brain_tui.core.paths.agent_programs import SHELL_FENCED
from brain_tui.core.paths.path_keys import path_key
from brain_tui.core.paths.scope import ScopeEntry

#: The fence's switches: on, no run without it, no retry outside it, no prompt for what it confines.
FENCE_KEYS: dict[str, bool] = {
    "enabled": True,
    "failIfUnavailable": True,
    "allowUnsandboxedCommands": False,
    "autoAllowBashIfSandboxed": True,
}
#: The protocol files, and the settings that name programs run outside the sandbox, relative to the brain root.
PROTOCOL_PATHS = ("claims", "signals", "locks", "breath", ".brain", "BRAIN-INDEX.md", *SHELL_FENCED)
#: As `.claude/settings.json` spells them (read relative to the project folder, the agent's cwd).
PROTOCOL_DENY_WRITE = tuple(f"./{path}" for path in PROTOCOL_PATHS)
#: Left out of the fence beside the scopes, at the brain root: git's folder (the satellite commits its work)
#: and `.claude` (Claude Code fences its own settings there, and its sandbox cannot start when the folder
#: is read-only: it makes mount points inside it, "Can't create file at .claude/commands").
KEEP_WRITABLE = frozenset({".git", ".claude"})


def scope_paths(entries: Sequence[ScopeEntry]) -> list[str] | None:
    """The brain paths a claim's shell may write (a section opens its file); None for the global scope."""
    paths: list[str] = []
    for entry in entries:
        if entry.kind == "global":
            return None
        for path in (entry.path, entry.target):
            if path and path not in paths:
                paths.append(path)
    return paths


def _beside(root: Path, allowed: Sequence[str]) -> list[str]:
    """Brain paths on the way down to `allowed` that are neither allowed nor on the way (sorted).

    Names compare as the scopes do (`path_key`: NFC, case-folded), so `Docs/` keeps `docs` open.
    """
    allowed_parts = [tuple(p.split("/")) for p in allowed]
    is_allowed = {path_key("/".join(parts)) for parts in allowed_parts}
    covered = {path_key("/".join(parts[:n])) for parts in allowed_parts for n in range(1, len(parts) + 1)}
    denied: list[str] = []
    folders = sorted({parts[:n] for parts in allowed_parts for n in range(len(parts))})
    for folder in folders:
        if any(path_key("/".join(folder[:n])) in is_allowed for n in range(1, len(folder) + 1)):
            continue  # inside an allowed folder: all of it is writable
        try:
            names = sorted(os.listdir(root.joinpath(*folder)))
        except OSError:
            continue
        for name in names:
            here = "/".join((*folder, name))
            if path_key(here) in covered or (not folder and name in KEEP_WRITABLE):
                continue
            denied.append(here)
    return denied


def _absolute(root: Path, paths: Iterable[str]) -> list[str]:
    """Claude Code's absolute spelling (`//abs/path`) of brain paths."""
    return ["/" + str(root / path) for path in paths]


def claim_sandbox(root: str | os.PathLike[str], entries: Sequence[ScopeEntry]) -> dict[str, Any]:
    """The settings object of a launched satellite: the fence, writable only where its claim's scopes are.

    ``{"sandbox": {…FENCE_KEYS, "filesystem": {"allowWrite": […], "denyWrite": […]}}}``, every path absolute
    (`root`: the agent's working folder); a global scope denies the protocol files only.
    """
    base = Path(os.path.abspath(root))
    allowed = scope_paths(entries)
    deny = list(PROTOCOL_PATHS)
    if allowed is not None:
        deny += [path for path in _beside(base, allowed) if path not in deny]
    filesystem: dict[str, Any] = {}
    if allowed:
        filesystem["allowWrite"] = _absolute(base, allowed)
    filesystem["denyWrite"] = _absolute(base, deny)
    return {"sandbox": {**FENCE_KEYS, "filesystem": filesystem}}

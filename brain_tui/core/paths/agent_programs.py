"""The settings that name programs run outside an agent's sandbox: a human's files, never an agent's (SPEC 21).

The agents' clients run their hooks and MCP servers outside the sandbox of the agent's shell, and bsi runs
`launch.command` and `notify.command` from `brain-compose.yml` for the pilot. Whoever writes these files chooses what
runs there next (the pilot's own session included), or lifts the hooks that decide the writes (`disableAllHooks`, a
hook entry taken out): they are the files `bsi hooks install|uninstall` and `bsi mcp install` write, which an agent may
not run (SPEC 21.2). The brain's copies, and the user's own in the home folder (`~/.claude/settings.json`,
`~/.gemini/settings.json`, `$CODEX_HOME/hooks.json`…), where an agent's edit tool still reaches; and the user's git
settings (`~/.gitconfig`), which name programs the human's git and bsi's run. Claude Code's session environment
(`~/.claude/session-env/`, or below `$CLAUDE_CONFIG_DIR`) too: it sources those files before each of the agent's
shell commands, so they set what later commands run with (`GIT_DIR`, `PATH`) where no hook sees it. The environment
files the clients load at start (`.env`), and what starts the human's next terminal (`~/.bashrc`, `~/.profile`, ssh's
keys and settings): they reach the hooks' environment (`BSI_HOOKS`, `BRAIN_ROOT`, `BSI_SESSION`) or let a command in
as the human. The folders programs and bsi's modules are taken from: `program_folders`.

Standard library only: `bsi hook pre-tool-use` imports this module on its hot path.
"""

from __future__ import annotations

import os

from brain_tui.core.paths.path_keys import below_folder, path_key
from brain_tui.core.paths.program_folders import program_folder

__all__ = ["SHELL_FENCED", "agent_program_file"]

#: Below the brain: files, then folders whose every file names a program (a hook's wrapper script). The clients'
#: settings and the environment files they load at start (Gemini CLI: the first `.gemini/.env` or `.env` from its
#: folder up) are read in whatever folder of the brain a client starts: they are matched in every folder.
_BRAIN_FILES = (".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".gemini/settings.json",
                ".gemini/.env", ".env", "brain-compose.yml")
#: A skill's, a command's or a subagent's frontmatter may declare hooks, which Claude Code registers when it is
#: invoked (the agent's own Skill tool can) and runs outside the sandbox.
_CLAUDE_PROMPTS = (".claude/skills", ".claude/commands", ".claude/agents")
_BRAIN_FOLDERS = (".claude/hooks", *_CLAUDE_PROMPTS, ".gemini/extensions")
#: Those only the brain's root holds (bsi's own settings).
_ROOT_ONLY = frozenset({"brain-compose.yml"})
#: The brain's copies the OS sandbox keeps read-only to an agent's shell (`bsi hooks install`): every one but
#: those under `.claude/`, which Claude Code's own fence keeps (its sandbox cannot start with `.claude` denied).
SHELL_FENCED = tuple(name for name in _BRAIN_FILES if not name.startswith(".claude/"))
#: Below the home folder (the user's settings of each client, and git's own: its hooks path, fsmonitor, diff and
#: merge drivers, credential helper, `url.*.insteadOf` and attributes file reach the human's git and bsi's).
_HOME_FILES = (".claude/settings.json", ".claude/settings.local.json", ".claude.json", ".gemini/settings.json",
               ".gemini/trustedFolders.json", ".codex/config.toml", ".codex/hooks.json", ".gitconfig",
               ".config/git/config", ".config/git/attributes", ".env", ".gemini/.env", ".codex/.env",
               # what a shell, a login or ssh starts the human's next terminal with (the agent started from it too)
               ".profile", ".bashrc", ".bash_profile", ".bash_login", ".zshenv", ".zshrc", ".zprofile", ".zlogin",
               ".pam_environment", ".config/fish/config.fish", ".ssh/authorized_keys", ".ssh/authorized_keys2",
               ".ssh/config", ".ssh/rc", ".ssh/environment")
#: Folders whose files the clients run outside the sandbox (hook scripts, plugins, extensions) or source for the
#: agent's shell, the start folders of a terminal, and the user's services (systemd units, login items).
_HOME_FOLDERS = (".claude/session-env", ".claude/hooks", ".claude/plugins", *_CLAUDE_PROMPTS, ".gemini/extensions",
                 ".config/fish/conf.d", ".config/environment.d", ".config/systemd", ".config/autostart",
                 "Library/LaunchAgents")
#: Below `$CLAUDE_CONFIG_DIR` (Claude Code's settings and session environment, when it is not `~/.claude`).
_CLAUDE_FILES = ("settings.json", "settings.local.json", ".claude.json")
_CLAUDE_FOLDERS = ("session-env", "hooks", "plugins", "skills", "commands", "agents")
#: Below `$CODEX_HOME` (Codex's settings, when they are not in `~/.codex`).
_CODEX_FILES = ("config.toml", "hooks.json", ".env")
#: Below `$XDG_CONFIG_HOME` (git's user settings, when that folder is not `~/.config`).
_XDG_FILES = ("git/config", "git/attributes")
#: Each user folder's variable, the name a refusal gives it, its files, its folders.
_USER_PLACES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("HOME", "~/", _HOME_FILES, _HOME_FOLDERS), ("CODEX_HOME", "$CODEX_HOME/", _CODEX_FILES, ()),
    ("XDG_CONFIG_HOME", "$XDG_CONFIG_HOME/", _XDG_FILES, ()),
    ("CLAUDE_CONFIG_DIR", "$CLAUDE_CONFIG_DIR/", _CLAUDE_FILES, _CLAUDE_FOLDERS))


def agent_program_file(root: str | os.PathLike[str], absolute: str, tree: bool = False,
                       environ: dict[str, str] | None = None) -> str | None:
    """The agent setting that a write of `absolute` changes (one below it, or on its way), as ``<brain>/.mcp.json``
    or ``~/.claude/settings.json``, or None.

    `absolute` is matched with links followed, in any case, under any name of the folders; with `tree`, everything
    below it is written too (`rm -r`, a copy into a folder). `HOME`, `CODEX_HOME`, `XDG_CONFIG_HOME` and
    `CLAUDE_CONFIG_DIR` are read from `environ` (default: this process's environment).
    """
    env = os.environ if environ is None else environ
    places: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
        (os.fspath(root), "<brain>/", _BRAIN_FILES, _BRAIN_FOLDERS)]
    for variable, prefix, names, folders in _USER_PLACES:
        folder = env.get(variable, "")
        if folder and os.path.isabs(folder) and os.path.normpath(folder) != "/":
            places.append((folder, prefix, names, folders))
    in_brain = False
    for base, shown, files, folders in places:
        rel = below_folder(base, absolute)
        if rel is None:
            continue
        in_brain = in_brain or base is places[0][0]
        key = path_key(rel)
        found = _matched(key, files, folders, tree)
        if found is not None:
            return shown + found
        if base is places[0][0]:  # the clients' own files in a folder of the brain
            parts = key.split("/")
            for start in range(1, len(parts)):
                found = _matched("/".join(parts[start:]), files, folders, False)
                if found is not None and found not in _ROOT_ONLY:
                    return f"{shown}{'/'.join(parts[:start])}/{found}"
    return None if in_brain else program_folder(os.fspath(root), absolute, env)


def _matched(key: str, files: tuple[str, ...], folders: tuple[str, ...], tree: bool) -> str | None:
    """The name among `files` and `folders` that a write of `key` (a path key below their folder) changes, or None."""
    for name in (*files, *folders):
        wanted = path_key(name)
        # a folder on the way is replaced or made by its write (a link, a move, a copy onto it): its files too
        if key == wanted or (name in folders and key.startswith(wanted + "/")) or \
                (key and wanted.startswith(key + "/")) or (tree and key == ""):
            return name
    return None

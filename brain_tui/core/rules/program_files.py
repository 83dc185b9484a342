"""Files no agent's tool writes (SPEC 21, 22): those naming programs run outside its sandbox, and git's records.

Git's own program files in the brain's repository, the agent clients' settings, `brain-compose.yml`, a terminal's
start files and the folders programs are taken from (`paths/agent_programs`, `paths/program_folders`): what they
name runs for whoever comes next (the pilot's terminal, bsi, the hooks). The rest of git's folder (HEAD, the refs,
the index, the objects) is git's record of what is in force: a ref written by hand moves the branch past a human's
pause as surely as a claim file edited; a `.git` made in a folder of the brain can name that same repository with
another work tree. Git commands change it (a satellite commits its work; `shell_git` reads
what they move); `write_decision` refuses a tool's write to any of it.
"""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.paths import path_keys


def program_file_reason(root: Path, full: str, tree: bool, shown: str,
                        environ: dict[str, str] | None = None) -> str | None:
    """Why the file (or folder, `tree`) at the absolute path `full` is not an agent's to write, or None.

    `environ`: where `HOME` and the clients' folders are read (default: this process's environment). The hook's
    shortcut (`hooks.fast`) asks this too, so it never lets through a file refused here.
    """
    from brain_tui.core.paths.agent_programs import agent_program_file
    from brain_tui.core.records.git_head import git_dirs

    for gitdir in git_dirs(root):
        # `config` (hooks path, fsmonitor, filter and merge drivers, signing programs, includes), `config.worktree`,
        # `hooks/`, `info/` (attributes): git runs what they name for whoever runs git next.
        rel = path_keys.below_folder(gitdir, full)
        if rel is None:
            continue
        rel = rel.casefold()
        if (tree and rel == "") or rel in ("config", "config.worktree", "hooks", "info") or \
                rel.startswith(("hooks/", "info/")):
            return (f"{shown} names programs git runs for whoever runs it next, outside this sandbox: a human "
                    "changes it (`git config`, the hooks), never an agent")
        return (f"{shown} is git's own record of the brain (HEAD, the refs, the index: what is in force, SPEC 22): "
                "git commands change it, never an editor tool or a shell redirection")
    inside = path_keys.below_folder(root, full)
    if inside and ".git" in (part.casefold() for part in inside.split("/")):
        # a `.git` file or folder in the brain makes its folder a work tree of whatever repository it names: one
        # naming the brain's own, `git rm -r --cached . && git commit` there takes every claim out of HEAD
        return (f"{shown} is a `.git` inside the brain: it names the repository git acts on from that folder (the "
                "brain's own, with another work tree): a human makes one (`git init`, `git clone`), never an agent")
    setting = agent_program_file(root, full, tree, environ=environ)
    if setting is None:
        return None
    return (f"{shown} changes {setting}, which names the hooks, MCP servers, commands or environment run outside "
            "this sandbox: a human changes it (`bsi hooks install`, `bsi mcp install`, an editor of their own), "
            "never an agent")


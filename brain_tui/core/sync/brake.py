"""What a human's pause needs of the sync side when it goes on without the remote (`write_path.mutate`).

A remote that cannot take the pause now leaves it committed here and pending. The refusal's own message speaks of a
write that was refused (its local commit taken back, nothing changed, try again): the pause's commit is kept, so its
warning says that in its own words (`not_pushed`), quoting only why the remote did not take it. A brain-compose.yml
that does not parse hides whether the brain syncs: the copy of its last commit tells (`set_to_sync_at_head`).
"""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.errors import BsiError, Contended, RemoteUnreachable
from brain_tui.core.sync.gitops import GitError

__all__ = ["not_pushed", "set_to_sync_at_head"]


def not_pushed(exc: BsiError) -> str:
    """The warning of a pause the remote did not take (`exc`, what refused the push): committed here and in force,
    not pushed, why in a few words, what to do."""
    why, step = _why(exc)
    then = "it goes out with the next sync (`bsi sync`)"
    return f"the pause is committed here and in force, but not pushed: {why}; {f'{step}, then ' if step else ''}{then}"


def _why(exc: BsiError) -> tuple[str, str]:
    """(why the remote did not take the push, what a person does first: empty when only a later sync is needed)."""
    if isinstance(exc, Contended):
        from brain_tui.core.sync.remote import MAX_TRIES

        return f"the remote kept moving (push rejected {MAX_TRIES} times)", ""
    if isinstance(exc, RemoteUnreachable):
        return exc.reason, "" if exc.retry_helps else "add it"
    if isinstance(exc, GitError):
        # an error built without its own reason speaks of the write it refused ("…; the files it was given were
        # restored"): only its first clause, what failed, is said of a pause that is committed
        return (exc.reason if exc.reason != exc.message else exc.message.split("; ")[0]), exc.step
    return exc.message, ""  # the push guard's (InvalidData): it names the file and the human's choice


def set_to_sync_at_head(root: Path) -> bool:
    """True when brain-compose.yml as the last commit holds it sets `sync: auto` (the work tree's copy may not
    parse: a pause written then is still one the remote waits for). A blob larger than a brain-compose.yml can be
    is not read: it sets nothing."""
    from brain_tui.core.config import sync_written
    from brain_tui.core.paths.layout import CONFIG_FILE
    from brain_tui.core.records.yamlio import MAX_FILE_BYTES
    from brain_tui.core.sync.gitops import run_git

    blob = f"HEAD:./{CONFIG_FILE}"
    size = run_git(root, "cat-file", "-s", blob, check=False)  # a file committed at any size is never read whole
    if size.returncode != 0 or not size.stdout.strip().isdigit() or int(size.stdout) > MAX_FILE_BYTES:
        return False  # none, or too large to be a brain-compose.yml (`yamlio.safe_load_text`): it names no mode
    proc = run_git(root, "cat-file", "blob", blob, check=False)
    return proc.returncode == 0 and sync_written(proc.stdout) == "auto"

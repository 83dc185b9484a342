"""The brain's local pending commits against the remote tip: what they add, files at a ref, rewriting them.

Used after a fetch, before the rebase, by the protocol's reconciliation (core/rules/reconcile.py through
core/facade_remote.py): an ID taken on two machines is renamed in the local commits, which nobody else has yet. And
by `remote.integrate`, on the work tree: what can be moved out of the remote's way, and what stops a rebase.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from brain_tui.core.paths.layout import INDEX_FILE
from brain_tui.core.records import journal
from brain_tui.core.sync import gitops
from brain_tui.core.sync.remote import REMOTE, rev

__all__ = ["clear_the_way", "file_at", "in_the_way", "iter_local_commits", "local_added_claims", "refuse_in_the_way",
           "remote_file", "rewrite_local"]


def local_added_claims(root: Path, branch: str) -> set[str]:
    """IDs of the claim files the local pending commits add (since the fork point from the remote tip)."""
    upstream = f"refs/remotes/{REMOTE}/{branch}"
    proc = gitops.run_git(root, "diff", "--name-only", "-z", "--relative", "--diff-filter=A", f"{upstream}...HEAD",
                          "--", "claims/", check=False)
    if proc.returncode != 0:
        if "unknown revision" in proc.stderr or "bad revision" in proc.stderr:
            return set()  # no remote branch yet: nothing of the remote's to lose to
        # never "none": sync would push a claim that lost its scope as open, or miss an ID to rename
        raise gitops.GitError(f"git diff failed: {gitops.reason(proc.stderr, str(proc.returncode))}")
    return {Path(p).stem for p in proc.stdout.split("\0") if p.endswith((".yml", ".yaml"))}


def uncommitted_new_claims(root: Path) -> set[str]:
    """IDs of the claim files in the work tree that HEAD does not hold (a `--no-commit` open: untracked, or only
    staged). Decided on this clone's view like an offline open, they meet the remote's claims at sync."""
    # A listing that fails raises (never "none": a claim that lost its scope would stay open beside the remote's).
    untracked = gitops.run_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", "claims/").stdout
    staged = gitops.run_git(root, "diff", "--cached", "--name-only", "-z", "--relative", "--diff-filter=A", "HEAD",
                            "--", "claims/").stdout
    return {Path(p).stem for p in (untracked + staged).split("\0") if p.endswith((".yml", ".yaml"))}


def clear_the_way(root: Path, upstream: str) -> None:
    """Before a fast-forward or a rebase onto `upstream`: move out of its way what holds nothing of the user's.

    An uncommitted regeneration of BRAIN-INDEX.md's block goes back to HEAD's text (it is regenerated after every
    integration); an untracked protocol record byte for byte the remote's (a claim file left behind when HEAD was
    moved back: `git reset`) is staged, so git takes it as the remote's file and nobody has to move it by hand.
    The work tree's files are never rewritten here.
    """
    _regenerated_index_out_of_the_way(root)
    from brain_tui.core.sync.settle import PROTOCOL_DIRS, is_protocol

    prefix = gitops.top_prefix(root)
    listed = gitops.run_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--",
                            *PROTOCOL_DIRS, check=False).stdout
    same = []
    for path in (p for p in listed.split("\0") if p):
        rel = gitops.brain_relative(path, prefix)
        if not is_protocol(rel):
            continue
        theirs = gitops.run_git(root, "rev-parse", "--verify", "--quiet", f"{upstream}:{path}", check=False)
        ours = gitops.run_git(root, "hash-object", "--", rel, check=False)
        if theirs.returncode == 0 and ours.returncode == 0 and theirs.stdout.strip() == ours.stdout.strip():
            same.append(rel)
    if same:
        gitops.run_git(root, "add", "--", *same)


def _regenerated_index_out_of_the_way(root: Path) -> None:
    """Put BRAIN-INDEX.md back to HEAD's text when only its generated block changed.

    It is regenerated after every integration, so an uncommitted regeneration
    (`--no-commit`) must never block a fast-forward or a rebase.
    """
    from brain_tui.core.records.index import END, START

    path = root / INDEX_FILE
    if not path.is_file():
        return
    head = gitops.run_git(root, "show", f"HEAD:./{INDEX_FILE}", check=False)
    if head.returncode != 0:
        return
    text = path.read_text(encoding="utf-8", errors="replace")

    def outside(doc: str) -> str:
        start, end = doc.find(START), doc.rfind(END)
        return doc if start < 0 or end < start else doc[:start] + doc[end + len(END):]

    if text != head.stdout and outside(text) == outside(head.stdout):
        gitops.run_git(root, "checkout", "HEAD", "--", INDEX_FILE, check=False)


def in_the_way(root: Path, upstream: str) -> list[str]:
    """The brain's files (sorted, brain-relative; none when git does not answer) with uncommitted changes (or
    untracked) that the commits of `upstream` since the fork point change: a rebase would leave them half-merged in
    git's stash, or could not start. A protocol record changed in place is not in the way (it is settled by the
    protocol's rules when carried over: `settle`); an untracked one is."""
    from brain_tui.core.sync.settle import is_protocol

    base = gitops.run_git(root, "merge-base", "HEAD", upstream, check=False).stdout.strip()
    if not base:
        return []
    changed = set(gitops.run_git(root, "diff", "--name-only", "-z", "--no-renames", base, upstream,
                                 check=False).stdout.split("\0"))
    status = gitops.run_git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
                            check=False).stdout
    prefix, found = gitops.top_prefix(root), set()
    for entry in (e for e in status.split("\0") if len(e) > 3):
        code, path = entry[:2], entry[3:]
        rel = gitops.brain_relative(path, prefix)
        if path in changed and (code == "??" or not is_protocol(rel)):
            found.add(rel)
    return sorted(found)


def refuse_in_the_way(root: Path, upstream: str) -> None:
    """Before a rebase onto `upstream`: refuse when uncommitted files are in its way (`in_the_way`).

    Raises:
        FastForwardFailed: the files named, nothing changed (exit 22, as a fast-forward that cannot run)."""
    if blocking := in_the_way(root, upstream):
        where = f"uncommitted files in the way: {', '.join(blocking)}"
        raise gitops.FastForwardFailed(f"cannot rebase onto {upstream}: {where}; nothing was changed. Commit, move or "
                                       "stash those files, then run `bsi sync`",
                                       reason=f"the remote's commits cannot be brought in ({where})",
                                       step="commit, move or stash those files")


def iter_local_commits(root: Path, branch: str) -> Iterator[str]:
    """The local commits not on the remote tip, oldest first."""
    upstream = f"refs/remotes/{REMOTE}/{branch}"
    if rev(root, upstream) is None:
        return iter(())
    proc = gitops.run_git(root, "rev-list", "--reverse", f"{upstream}..HEAD")  # a failure is no "none"
    return iter(proc.stdout.split())


def file_at(root: Path, ref: str, rel: str) -> str | None:
    """The text of `rel` (brain-relative) at `ref`, or None when it is not there."""
    proc = gitops.run_git(root, "show", f"{ref}:./{rel}", check=False)
    return proc.stdout if proc.returncode == 0 else None


def remote_file(root: Path, branch: str, rel: str) -> str | None:
    """The text of `rel` on the fetched remote tip, or None."""
    return file_at(root, f"refs/remotes/{REMOTE}/{branch}", rel)


def rewrite_local(root: Path, branch: str, edit: Callable[[str, str], tuple[str, str] | None],
                  message: Callable[[str], str], touched: Mapping[str, str]) -> None:
    """Rewrite the local pending commits (never pushed, so nobody else has them), path by path.

    For each local commit, every brain path in `touched` (old path → new path) present in its tree is replaced by
    `edit(old_path, text)` → (new path, new text), or kept when `edit` returns None; its message goes through
    `message`. Authors and dates are kept. The work tree and the index follow for those paths only: nothing else is
    touched. Call with the brain lock held.

    Raises:
        GitError: a git step failed (nothing rewritten); never a silent "nothing to rewrite", which would let
            the rebase replace the local claim by the remote's file of the same name.
    """
    commits = list(iter_local_commits(root, branch))
    gdir = gitops.git_dir(root)
    if not commits or gdir is None:  # the caller found the paths in local commits: git did not answer
        raise gitops.GitError("git could not list the local commits to rewrite; nothing was changed")
    prefix = gitops.top_prefix(root)
    top = gitops.toplevel(root)
    tmp_index = gdir / "bsi-rewrite.index"
    env = {"GIT_INDEX_FILE": str(tmp_index)}
    parent = gitops.run_git(root, "rev-parse", f"{commits[0]}^").stdout.strip()
    try:
        for commit in commits:
            gitops.run_git(root, "read-tree", commit, env=env)
            # which of the paths the commit holds, then their texts: a git failure raises, never reads as "absent"
            held = set(gitops.run_git(root, "ls-tree", "-z", "--name-only", commit, "--", *touched).stdout.split("\0"))
            for old in (rel for rel in touched if rel in held):
                text = gitops.run_git(root, "show", f"{commit}:./{old}").stdout
                changed = edit(old, text)
                if changed is None:
                    continue
                new_rel, new_text = changed
                blob = gitops.run_git(root, "hash-object", "-w", "--stdin", input_text=new_text).stdout.strip()
                gitops.run_git(top, "update-index", "--force-remove", "--", f"{prefix}{old}", env=env)
                gitops.run_git(top, "update-index", "--add", "--cacheinfo", f"100644,{blob},{prefix}{new_rel}",
                               env=env)
            tree = gitops.run_git(root, "write-tree", env=env).stdout.strip()
            meta = gitops.run_git(root, "log", "-1", "--format=%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B",
                                  commit).stdout
            an, ae, ad, cn, ce, cd, body = meta.split("\0", 6)
            dates = {"GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": ad,
                     "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": cd}
            parent = gitops.run_git(root, "commit-tree", tree, "-p", parent, "-F", "-", env=dates,
                                    input_text=message(body.rstrip("\n")) + "\n").stdout.strip()
    finally:
        tmp_index.unlink(missing_ok=True)
    paths = [rel for old, new in touched.items() for rel in dict.fromkeys((old, new))]
    with journal.moving(root, paths):  # a kill between the ref and the files is settled at the next command
        gitops.run_git(root, "update-ref", "-m", "bsi: rename clashing claim IDs", "HEAD", parent, commits[-1])
        journal.follow_head(root, paths)

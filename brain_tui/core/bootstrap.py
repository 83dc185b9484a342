"""Making a new brain: the folder, `git init` when needed, the layout, `.brain/` ignored, the first commit."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE, STATE_DIR
from brain_tui.core.records.yamlio import atomic_write_text
from brain_tui.core.sync import gitops


def make_folder(root: Path) -> None:
    """Create `root` (and its parents) for a new brain; InvalidData (exit 65, one line) when it exists as a file, or
    cannot be created."""
    if root.exists() and not root.is_dir():
        raise InvalidData(f"{root} exists and is not a folder: give a folder for the brain")
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".bsi-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InvalidData(f"cannot make a brain at {root}: {exc.strerror or exc}") from None


def init_brain(path: str | os.PathLike[str], commit: bool = True, now: str | None = None) -> Path:
    """`bsi init`: create the layout, `git init` when needed, ignore `.brain/`, commit it; gives the brain's path.

    `now`: the command's `--now` (None: `$BRAIN_NOW`, else the system clock), the first commit's date.
    """
    if not os.fspath(path).strip():  # an unset variable in a script: never the current folder by accident
        raise InvalidData("bsi init: the folder named is blank; give a path (or none for the current folder)")
    root = Path(path).expanduser().resolve()
    make_folder(root)
    for name in (*DATA_DIRS, STATE_DIR):
        if (root / name).exists() and not (root / name).is_dir():
            raise InvalidData(f"{root / name} exists and is not a folder: a brain needs {name}/ there; "
                              "move that file away, then run `bsi init` again")
    if (root / INDEX_FILE).exists() and not (root / INDEX_FILE).is_file():
        raise InvalidData(f"{root / INDEX_FILE} is not a file: move it away, then run `bsi init` again")
    # What this init makes beside the files (`writing` puts those back): taken away again when it fails.
    git_init = not gitops.is_repository(root)
    made = [root / name for name in ((".git",) if git_init else ()) + (*DATA_DIRS, STATE_DIR)
            if not (root / name).exists()]
    try:
        _init_in(root, commit, git_init, now)
    except BaseException:
        _take_away(made)
        raise
    return root


def _init_in(root: Path, commit: bool, git_init: bool, now: str | None) -> None:
    """The layout, the index and the first commit in the folder `root` (`git init` first when `git_init`), at the
    clock `now` names (`Brain`'s `now`)."""
    if git_init:
        gitops.run_git(root, "init", "--quiet")
    from brain_tui.core.brain import Brain  # the index is written the way every write writes it
    from brain_tui.core.records.journal import recover_writes, writing
    from brain_tui.core.write_path import refresh_index

    brain = Brain(root, now=now, commit=False)
    planned = [f"{folder}/.gitkeep" for folder in DATA_DIRS] + [".gitignore", INDEX_FILE]
    with brain.locked():
        recover_writes(root)
        # All or nothing: a failure (a full disk, a failed commit) or a kill puts every file back.
        with writing(root, planned, "bsi: init brain", commit) as entry:
            created = _write_layout(root)
            _, index_paths = refresh_index(brain, cover=entry.cover)
            created.extend(index_paths)
            entry.cover(created)
            if commit and created:
                gitops.commit_paths(root, created, "bsi: init brain", brain.now())


def _take_away(made: list[Path]) -> None:
    """Remove what a failed init made: the repository it created, and its folders where they hold nothing else
    (``.brain/`` holds only its own state then)."""
    for path in made:
        if path.name in (".git", STATE_DIR):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):  # not empty: something else was put there meanwhile
                for keep in path.glob(".gitkeep"):
                    keep.unlink()
                path.rmdir()


def _write_layout(root: Path) -> list[str]:
    """The data folders with their `.gitkeep`, and `.brain/` in `.gitignore`; returns the files written."""
    created: list[str] = []
    for folder in DATA_DIRS:
        (root / folder).mkdir(exist_ok=True)
        keep = root / folder / ".gitkeep"
        if not keep.exists():
            keep.write_text("")
            created.append(f"{folder}/.gitkeep")
    ignore = root / ".gitignore"
    lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.exists() else []
    if not {".brain/", ".brain", "/.brain/", "/.brain"} & {line.strip() for line in lines}:
        lines.append(".brain/")
        atomic_write_text(ignore, "\n".join(lines) + "\n")
        created.append(".gitignore")
    return created

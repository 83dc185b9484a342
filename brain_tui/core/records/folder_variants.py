"""Claim files under another spelling of ``claims/`` (``Claims/``, ``CLAIMS/``): they hold what they may hold.

On the laptop's case-insensitive file system ``Claims/x.yml`` is ``claims/x.yml``: a claim a Linux clone commits
there is read as a claim by the laptop. A clone whose file system tells the two folders apart would ignore it and
let a second session take its scope, so each such file is a corrupt row there (SPEC 22: it fails closed), holding
what it may hold (`unreadable.held_by_file`: a finished one holds nothing), until a human moves it into
``claims/``. Where the file system folds case, the spelling is ``claims/`` itself and nothing is reported.
"""

from __future__ import annotations

import os
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.paths.path_keys import path_key
from brain_tui.core.records.formats import YAML_SUFFIXES
from brain_tui.core.records.model import CorruptFile
from brain_tui.core.records.unreadable import held_by_file
from brain_tui.core.records.yamlio import TEMP_MARK

__all__ = ["misplaced_claims", "variants"]


def variants(root: str | os.PathLike[str]) -> list[str]:
    """The folders of the brain whose name is another spelling of ``claims`` (not ``claims/`` itself)."""
    base = os.fspath(root)
    own = os.path.join(base, CLAIMS_DIR)
    wanted = path_key(CLAIMS_DIR)
    found: list[str] = []
    try:
        with os.scandir(base) as entries:
            for entry in entries:
                if entry.name == CLAIMS_DIR or path_key(entry.name) != wanted:
                    continue
                try:
                    if not entry.is_dir(follow_symlinks=False) or \
                            (os.path.isdir(own) and os.path.samefile(entry.path, own)):
                        continue
                except OSError:
                    continue
                found.append(entry.name)
    except OSError:
        return []
    return sorted(found)


def misplaced_claims(root: Path, tz: tzinfo) -> list[CorruptFile]:
    """A corrupt row for each claim file under another spelling of ``claims/`` that may hold something."""
    rows: list[CorruptFile] = []
    for folder in variants(root):
        try:
            names = sorted(os.listdir(root / folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(YAML_SUFFIXES) or name.startswith(TEMP_MARK):
                continue
            rel = f"{folder}/{name}"
            holds = held_by_file(root, rel, tz)
            if holds:
                rows.append(CorruptFile(rel, 0, f"a claim file in {folder}/, which a case-insensitive file system "
                                                f"reads as {CLAIMS_DIR}/: move it into {CLAIMS_DIR}/", holds))
    return rows

"""Signal files that carry the ID of another file (SPEC 7, 13): `signals/<sig_id>.yml` is the signal.

A signal file copied under another name inside `signals/` (a hand edit, a merge keeping both sides) carries the ID
`signals/<sig_id>.yml` carries. Read as a signal, the copy gave a second row of one ID that no command reaches
(`bsi signal ack ID` writes the file the snapshot finds first) and stayed pending for ever, in the attention queue
too. As for claims (a second file carrying a session ID, `finished.duplicate_holds`), the file of the ID's own name
holds the ID — `.yml`, else `.yaml` — whatever its state (an archived one, which a live read does not open, too);
any other file carrying that ID (``<sig_id>.yaml`` beside ``<sig_id>.yml`` too, as `finished.claim_file_rank` ranks
claim files) is one corrupt row naming it, and counts as no signal. A file whose ID has no file
of its own name is the signal, as before (a renamed file: which of several names is the signal is not guessed).
"""

from __future__ import annotations

import os
from pathlib import Path

from brain_tui.core.paths.layout import SIGNALS_DIR
from brain_tui.core.records.formats import YAML_SUFFIXES
from brain_tui.core.records.model import CorruptFile, Signal

__all__ = ["COPY_OF", "owned_signals", "signal_owner"]

#: How a copy's corrupt row begins (its reason): the file that holds its ID follows.
COPY_OF = "duplicate of "


def signal_owner(root: Path, sig: Signal) -> str | None:
    """The file that holds `sig`'s ID when it is not `sig`'s own file (``signals/<sig_id>.yml``, else ``.yaml``),
    or None: `sig` is in its ID's own file, or no file of that name exists.

    A name that reaches `sig`'s own file (a case-insensitive file system) is its own file, not another.
    """
    for suffix in YAML_SUFFIXES:
        rel = f"{SIGNALS_DIR}/{sig.sig_id}{suffix}"
        if rel == sig.path:
            return None
        try:
            there = os.lstat(root / rel)
        except OSError:
            continue
        try:
            if os.path.samestat(there, os.lstat(root / sig.path)):
                return None
        except OSError:
            pass
        return rel
    return None


def owned_signals(root: Path, signals: list[Signal], corrupt: list[CorruptFile]) -> list[Signal]:
    """`signals` less the copies (`signal_owner`); each copy goes to `corrupt` as one row naming the file that holds
    its ID and saying to remove the copy. An ``lstat`` or two per file not named ``<sig_id>.yml`` (none in a usual
    brain)."""
    kept: list[Signal] = []
    for sig in signals:
        owner = signal_owner(root, sig) if sig.path != f"{SIGNALS_DIR}/{sig.sig_id}.yml" else None
        if owner is None:
            kept.append(sig)
            continue
        corrupt.append(CorruptFile(sig.path, 1, f"{COPY_OF}{owner} (signal ID {sig.sig_id}): remove this copy"))
    return kept

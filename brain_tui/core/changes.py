"""ChangeSet: the files one command will write, built in memory before anything touches disk.

Protocol functions stage edits here; `Brain.apply` then writes them all
atomically, regenerates the index and commits exactly those paths. Claim edits
are round-trip edits (ruamel), so order, comments and unknown keys survive.
"""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from brain_tui.core.clock import format_timestamp
from brain_tui.core.errors import InvalidData
from brain_tui.core.model import BrainSnapshot
from brain_tui.core.yamlio import CorruptYaml, dump_round_trip, load_round_trip, safe_load_text

_ALPHABET = string.ascii_lowercase + string.digits
_rng: random.Random = secrets.SystemRandom()


def seed_ids(seed: int | None) -> None:
    """Make generated slugs reproducible (demo brains, snapshot tests); None restores the system RNG."""
    global _rng
    _rng = secrets.SystemRandom() if seed is None else random.Random(seed)


def random_slug(length: int = 4) -> str:
    """A random slug of lowercase letters and digits (session and signal IDs)."""
    return "".join(_rng.choice(_ALPHABET) for _ in range(length))


def flow_map(items: Mapping[str, Any]) -> CommentedMap:
    """A mapping emitted in flow style (`{ts: …, event: …}`), as gate_history entries are."""
    mapping = CommentedMap(items)
    mapping.fa.set_flow_style()
    return mapping


class ChangeSet:
    """Staged writes of one command, over the snapshot it was decided on.

    Attributes:
        snapshot: the brain as it was when the command started (lock held).
        message: the commit message.
        signals: IDs of signals written by this change, in order.
    """

    def __init__(self, snapshot: BrainSnapshot, message: str = "") -> None:
        self.snapshot = snapshot
        self.root = Path(snapshot.root)
        self.message = message
        self.signals: list[str] = []
        self._docs: dict[str, CommentedMap] = {}
        self._writes: dict[str, str | None] = {}
        self._new_signal_keys: set[tuple[str, str, str, str]] = set()

    # -- timestamps -------------------------------------------------------------------------
    def ts(self, moment: datetime | None = None) -> str:
        """Format `moment` (default: now) in the brain's timezone."""
        return format_timestamp(moment or self.snapshot.now, self.snapshot.tz)

    # -- claims -----------------------------------------------------------------------------
    def claim_doc(self, sess_id: str) -> CommentedMap:
        """The round-trip document of an existing claim, for editing in place.

        Raises:
            InvalidData: the claim file cannot be parsed for editing.
        """
        claim = self.snapshot.claim(sess_id)
        if claim is None:
            raise InvalidData(f"claim {sess_id} is not readable")
        if claim.path not in self._docs:
            text = (self.root / claim.path).read_text(encoding="utf-8")
            try:
                safe_load_text(text)
                self._docs[claim.path] = load_round_trip(text)
            except CorruptYaml as exc:
                raise InvalidData(f"{claim.path} line {exc.line}: {exc.reason}") from None
        return self._docs[claim.path]

    def update_claim(self, sess_id: str, fields: Mapping[str, Any], remove: tuple[str, ...] = ()) -> None:
        """Set fields of a claim (existing keys keep their place; new keys go at the end)."""
        doc = self.claim_doc(sess_id)
        for key, value in fields.items():
            doc[key] = value
        for key in remove:
            if key in doc:
                del doc[key]

    def add_history(self, sess_id: str, event: str, by: str, message: str = "") -> None:
        """Append one event to the claim's `gate_history` (always a valid YAML list)."""
        doc = self.claim_doc(sess_id)
        history = doc.get("gate_history")
        if not isinstance(history, list):
            history = CommentedSeq()
            doc["gate_history"] = history
        history.append(flow_map({"ts": self.ts(), "event": event, "by": by, "message": message}))

    def new_claim(self, rel_path: str, doc: CommentedMap) -> None:
        """Stage a new claim file."""
        self._docs[rel_path] = doc

    # -- signals ----------------------------------------------------------------------------
    def new_signal_id(self) -> str:
        """A fresh `sig-YYYYMMDD-HHMMSS-xxxx` ID in the brain's timezone."""
        stamp = self.snapshot.now.astimezone(self.snapshot.tz).strftime("%Y%m%d-%H%M%S")
        existing = {s.sig_id for s in self.snapshot.signals} | set(self.signals)
        while True:
            sig_id = f"sig-{stamp}-{random_slug()}"
            if sig_id not in existing:
                return sig_id

    def add_signal(
        self, sender: str, to: str, sig_type: str, payload: str, scope: str = ""
    ) -> str | None:
        """Stage a pending signal, unless an identical pending one exists.

        Returns:
            The new signal's ID, or None when an identical pending signal exists.
        """
        key = (sender, to, sig_type, payload)
        for existing in self.snapshot.signals:
            if existing.state == "pending" and (existing.sender, existing.to, existing.type,
                                                existing.payload) == key:
                return None
        if key in self._new_signal_keys:
            return None
        self._new_signal_keys.add(key)
        sig_id = self.new_signal_id()
        doc = CommentedMap()
        doc["sig_id"] = sig_id
        doc["from"] = sender
        doc["to"] = to
        doc["type"] = sig_type
        doc["scope"] = scope
        doc["payload"] = payload
        doc["state"] = "pending"
        doc["created_at"] = self.ts()
        self._docs[f"signals/{sig_id}.yml"] = doc
        self.signals.append(sig_id)
        return sig_id

    def signal_doc(self, rel_path: str) -> CommentedMap:
        """The round-trip document of an existing signal file."""
        if rel_path not in self._docs:
            text = (self.root / rel_path).read_text(encoding="utf-8")
            try:
                safe_load_text(text)
                self._docs[rel_path] = load_round_trip(text)
            except CorruptYaml as exc:
                raise InvalidData(f"{rel_path} line {exc.line}: {exc.reason}") from None
        return self._docs[rel_path]

    # -- raw files --------------------------------------------------------------------------
    def put(self, rel_path: str, doc: Mapping[str, Any]) -> None:
        """Stage a whole YAML document at `rel_path` (locks, breath records)."""
        self._docs[rel_path] = doc if isinstance(doc, CommentedMap) else CommentedMap(doc)

    def delete(self, rel_path: str) -> None:
        """Stage the removal of a file."""
        self._docs.pop(rel_path, None)
        self._writes[rel_path] = None

    def put_text(self, rel_path: str, text: str) -> None:
        """Stage raw text (the index)."""
        self._writes[rel_path] = text

    @property
    def empty(self) -> bool:
        """True when nothing is staged."""
        return not self._docs and not self._writes

    def render(self) -> dict[str, str | None]:
        """Every staged file as text (None = delete). Each text is proven to read back."""
        out: dict[str, str | None] = {path: dump_round_trip(doc) for path, doc in self._docs.items()}
        out.update(self._writes)
        return out

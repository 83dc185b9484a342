"""ChangeSet: the files one command will write, built in memory before anything touches disk.

Protocol functions stage edits here; `Brain.apply` then writes them all atomically, regenerates the index and commits
exactly those paths. Claim edits are round-trip edits (ruamel), so order, comments and unknown keys survive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from brain_tui.core.clock import format_timestamp
from brain_tui.core.errors import InvalidData
from brain_tui.core.ids import new_signal_id
from brain_tui.core.record import record
from brain_tui.core.records.in_force import IN_HEAD, STATUS_IN_HEAD
from brain_tui.core.records.index_signals import index_only
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.odd_entries import SPECIAL, odd_kind_at
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.records.yamlio import CorruptYaml, dump_round_trip, load_round_trip, read_capped, safe_load_text

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:  # ruamel is the write path's: a read never loads it
    from typing import Any

    from ruamel.yaml.comments import CommentedMap

#: Text ruamel may write plain in any context (block or flow) and every YAML reader reads back as is.
_PLAIN_SAFE_RE = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_./@+<>()=-]| (?! |$)){0,200}")
#: Words a YAML 1.1 reader (PyYAML, most tools) would not read back as text when written plain.
_YAML11_WORDS = frozenset({"yes", "no", "on", "off", "y", "n", "true", "false", "null", "~"})
#: SPEC 6.1's claim fields in the order its file format gives them: a field a claim gains later (`closed_at`, `result`,
#: `gate_history`, `circuit`, …) takes its place among them (`place_field`); other fields stay where they are.
CLAIM_FIELD_ORDER = ("sess_id", "type", "instance", "scope", "story_angle", "status", "opened_at", "ttl", "expires_at",
                     "satellite_type", "satellite_level", "parent_satellite", "on_done", "on_partial", "on_fail",
                     "theme_branch", "closed_at", "result", "gate_history", "circuit")
#: The fields of a claim's `result` in SPEC 6.1's order (others follow, in the order given).
RESULT_FIELD_ORDER = ("status", "files_modified", "tests", "children", "commit", "signal_id", "notes")
#: Timestamps as `format_timestamp` writes them (ruamel single-quotes them; safe everywhere).
_TIMESTAMP_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?(?:[+-]\d\d:\d\d|Z)?")


def yaml_safe(value: Any) -> Any:
    """Make a value the product is about to write safe for the YAML emitter.

    ruamel writes some strings plain where YAML readers cannot read them back (``:@`` or ``?#`` inside a flow
    mapping) and folds NEL (U+0085) inside single quotes. Every string that is not plainly harmless is therefore
    written double-quoted (escapes for control characters); mappings and lists are converted recursively. Strings
    that already carry a style are kept.

    Raises:
        InvalidData: the text holds lone surrogates (bytes that were not UTF-8).
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, ScalarString

    if isinstance(value, ScalarString) or value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            raise InvalidData(f"text is not valid UTF-8: {value.encode('utf-8', 'backslashreplace')!r}")
        if value.lower() in _YAML11_WORDS:
            return DoubleQuotedScalarString(value)
        if not value or _PLAIN_SAFE_RE.fullmatch(value) or _TIMESTAMP_RE.fullmatch(value):
            return value
        return DoubleQuotedScalarString(value)
    if isinstance(value, CommentedMap):
        for key in list(value.keys()):
            value[key] = yaml_safe(value[key])
        return value
    if isinstance(value, CommentedSeq):
        for i, item in enumerate(value):
            value[i] = yaml_safe(item)
        return value
    if isinstance(value, Mapping):
        return {key: yaml_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [yaml_safe(item) for item in value]
    return value


def flow_map(items: Mapping[str, Any]) -> CommentedMap:
    """A mapping emitted in flow style (`{ts: …, event: …}`), as gate_history entries are."""
    from ruamel.yaml.comments import CommentedMap

    mapping = CommentedMap((key, yaml_safe(value)) for key, value in items.items())
    mapping.fa.set_flow_style()
    return mapping


def place_field(doc: CommentedMap, key: str, value: Any, order: tuple[str, ...] = CLAIM_FIELD_ORDER) -> None:
    """Set `key` in `doc`: an existing key keeps its place; a new key of `order` goes right after the last key of
    the document that `order` puts before it (SPEC 6.1's field order); any other new key goes at the end."""
    if key in doc or key not in order:
        doc[key] = value
        return
    earlier = set(order[: order.index(key)])
    at = max((index for index, name in enumerate(doc) if name in earlier), default=-1)
    if at < 0 or at == len(doc) - 1:
        doc[key] = value
    else:
        doc.insert(at + 1, key, value)


def in_field_order(fields: Mapping[str, Any], order: tuple[str, ...] = RESULT_FIELD_ORDER) -> dict[str, Any]:
    """`fields` as a new dict: the keys of `order` first, in that order, then the others as they came."""
    known = {key: fields[key] for key in order if key in fields}
    return {**known, **{key: value for key, value in fields.items() if key not in known}}


class ChangeSet:
    """Staged writes of one command over the `snapshot` it was decided on (lock held): its commit `message`, and
    the IDs of the `signals` it writes, in order."""

    def __init__(self, snapshot: BrainSnapshot, message: str = "") -> None:
        self.snapshot = snapshot
        self.root = Path(snapshot.root)
        self.message = message
        self.signals: list[str] = []
        self._docs: dict[str, CommentedMap] = {}
        self._originals: dict[str, str] = {}
        self._styles: dict[str, _TextStyle] = {}  # a hand-written file's BOM and CRLF, written back as found
        self._writes: dict[str, str | None] = {}
        self._new_signal_keys: set[tuple[str, str, str, str]] = set()
        #: Claims whose status a derived rule moved (a skewed stale mark revived, a claim lost at sync): not a
        #: human's decision, so the last door of a write (`rules.human_lifts`) lets them through.
        self.derived: set[str] = set()

    # -- timestamps -------------------------------------------------------------------------
    def ts(self, moment: datetime | None = None) -> str:
        """Format `moment` (default: now) in the brain's timezone."""
        return format_timestamp(moment or self.snapshot.now, self.snapshot.tz)

    # -- claims -----------------------------------------------------------------------------
    def claim_doc(self, sess_id: str) -> CommentedMap:
        """The round-trip document of an existing claim, for editing in place (InvalidData when it cannot be parsed)."""
        claim = self.snapshot.claim(sess_id)
        if claim is None:
            raise InvalidData(f"claim {sess_id} is not readable")
        if claim.path not in self._docs and ("from-index" in claim.flags and not (self.root / claim.path).exists()
                                             or IN_HEAD in claim.flags or STATUS_IN_HEAD in claim.flags):
            # a claim only a legacy BRAIN-INDEX.md records: acting on it writes its file (the import); one read
            # from HEAD (its file deleted, ended or lifted without a commit): acting on it writes HEAD's copy, edited
            # -- unless a link, a FIFO, a device or a socket stands where its file should be: that is no deleted file
            # (writing HEAD's copy would replace it unseen: a link by a regular file, a FIFO by whoever waits on it)
            if (kind := odd_kind_at(self.root / claim.path)) is not None:
                raise InvalidData(_not_regular(claim.path, kind))
            from ruamel.yaml.comments import CommentedMap

            self._docs[claim.path] = yaml_safe(CommentedMap(claim.data))
        return self.file_doc(claim.path)

    def update_claim(self, sess_id: str, fields: Mapping[str, Any], remove: tuple[str, ...] = ()) -> None:
        """Set fields of a claim (existing keys keep their place; new keys take SPEC 6.1's, `place_field`)."""
        doc = self.claim_doc(sess_id)
        for key, value in fields.items():
            place_field(doc, key, yaml_safe(value))
        for key in remove:
            if key in doc:
                del doc[key]

    def add_history(self, sess_id: str, event: str, by: str, message: str = "") -> None:
        """Append one event to the claim's `gate_history` (always a valid YAML list)."""
        doc = self.claim_doc(sess_id)
        history = doc.get("gate_history")
        if not isinstance(history, list):
            from ruamel.yaml.comments import CommentedSeq

            history = CommentedSeq()
            place_field(doc, "gate_history", history)
        history.append(flow_map({"ts": self.ts(), "event": event, "by": by, "message": message}))

    def new_claim(self, rel_path: str, doc: CommentedMap) -> None:
        """Stage a new claim file."""
        self._docs[rel_path] = yaml_safe(doc)

    # -- signals ----------------------------------------------------------------------------
    def new_signal_id(self) -> str:
        """A fresh `sig-YYYYMMDD-HHMMSS-xxxx` ID, unused by the snapshot and by this change (`core.ids`)."""
        return new_signal_id(self.snapshot, self.signals)

    def add_signal(
        self, sender: str, to: str, sig_type: str, payload: str, scope: str = ""
    ) -> str | None:
        """Stage a pending signal and return its ID; None (nothing staged) when an identical pending one exists."""
        key = (sender, to, sig_type, payload)
        for existing in self.snapshot.signals:
            if existing.state == SignalState.PENDING and (existing.sender, existing.to, existing.type,
                                                existing.payload) == key:
                return None
        if key in self._new_signal_keys:
            return None
        self._new_signal_keys.add(key)
        sig_id = self.new_signal_id()
        self.put(f"signals/{sig_id}.yml", {"sig_id": sig_id, "from": sender, "to": to, "type": sig_type,
                                           "scope": scope, "payload": payload, "state": "pending",
                                           "created_at": self.ts()})
        self.signals.append(sig_id)
        return sig_id

    def file_doc(self, rel_path: str) -> CommentedMap:
        """The round-trip document of an existing claim or signal file, to edit in place.

        Raises:
            InvalidData: it does not parse, is not UTF-8, or is no regular file (a FIFO, a device or a socket planted
                there after the read the write decided on: never waited on, never written over).
            OSError: it cannot be opened (deleted meanwhile).
        """
        if rel_path not in self._docs:
            raw = read_capped(self.root / rel_path, -1)
            if raw is None:
                raise InvalidData(_not_regular(rel_path))
            try:
                text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as `read_text` reads it
            except UnicodeDecodeError as exc:
                raise InvalidData(f"{rel_path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            try:
                safe_load_text(text)
                self._docs[rel_path] = load_round_trip(text)
                self._originals[rel_path] = text.removeprefix(BOM)
                crlf = raw.count(b"\r\n") * 2 > raw.count(b"\n")  # most lines end so: the file's own way
                self._styles[rel_path] = _TextStyle(bom=text.startswith(BOM), crlf=crlf)
            except CorruptYaml as exc:
                raise InvalidData(f"{rel_path} line {exc.line}: {exc.reason}") from None
        return self._docs[rel_path]

    def update_signal(self, rel_path: str, fields: Mapping[str, Any]) -> None:
        """Set fields of an existing signal file (round-trip edit; a legacy index row's: the file it becomes)."""
        row = next((sig for sig in self.snapshot.signals if sig.path == rel_path), None)
        if rel_path not in self._docs and row is not None and index_only(self.root, row):
            self.put(rel_path, row.data)
        doc = self.file_doc(rel_path)
        for key, value in fields.items():
            doc[key] = yaml_safe(value)

    # -- raw files --------------------------------------------------------------------------
    def put(self, rel_path: str, doc: Mapping[str, Any]) -> None:
        """Stage a whole YAML document at `rel_path` (locks, breath records)."""
        from ruamel.yaml.comments import CommentedMap

        self._docs[rel_path] = yaml_safe(doc if isinstance(doc, CommentedMap) else CommentedMap(doc))

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

    def staged_paths(self) -> list[str]:
        """The paths of every staged file (brain-relative), without rendering them."""
        return [*self._docs, *self._writes]

    def render(self) -> dict[str, str | None]:
        """Every staged file as text (None = delete), proven to read back (else InvalidData: nothing is written)."""
        out: dict[str, str | None] = {}
        for path, doc in self._docs.items():
            try:
                text = dump_round_trip(doc)
            except CorruptYaml as exc:
                raise InvalidData(f"{path} cannot be written as valid YAML: {exc.reason}") from None
            original = self._originals.get(path)
            text = keep_unchanged_lines(original, text) if original is not None else text
            out[path] = self._styles[path].apply(text) if path in self._styles else text
        out.update(self._writes)
        return out


BOM = "\ufeff"


@record
class _TextStyle:
    """How a hand-written file was saved (a byte-order mark, CRLF line endings), so an edit keeps it (SPEC 6.1:
    changing one field changes only that field's lines, not every line's ending)."""

    bom: bool
    crlf: bool

    def apply(self, text: str) -> str:
        """`text` (LF, no BOM) as the original file was saved."""
        text = text.replace("\n", "\r\n") if self.crlf else text
        return BOM + text if self.bom else text


def _not_regular(rel_path: str, kind: str = SPECIAL) -> str:
    """The refusal of a claim or signal file that is no regular file but `kind` (`odd_entries`; exit 65)."""
    return (f"cannot write {rel_path}: it is no regular file ({kind}); "
            "nothing was written (move it away, then run the command again)")


_TOP_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]|$)")


def _top_level_segments(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``(header, [(key, segment), …])`` of YAML text, one segment per top-level key with what follows it; None when
    a column-0 line is not a simple key, a comment or blank (the caller then keeps the emitter's text)."""
    header: list[str] = []
    segments: list[tuple[str, list[str]]] = []
    for line in text.splitlines(keepends=True):
        if line[:1] in (" ", "\t", "#", "\n", "\r") or (line[:1] == "-" and not line.startswith("---")):
            (segments[-1][1] if segments else header).append(line)
            continue
        match = _TOP_KEY_RE.match(line)
        if match is None:
            return None
        segments.append((match.group(1), [line]))
    keys = [key for key, _ in segments]
    if len(keys) != len(set(keys)):
        return None
    return "".join(header), [(key, "".join(lines)) for key, lines in segments]


def keep_unchanged_lines(original: str, emitted: str) -> str:
    """Keep the original text of every top-level field whose value did not change.

    ruamel keeps order, comments and unknown keys but re-spaces some lines (`sess_id:          x` becomes `sess_id:
    x`). SPEC 6.1 wants an edit to change only the lines of the edited fields, so every unchanged field is taken back
    from the original text. The result is proven to read as `emitted` does; otherwise `emitted` is returned as is.
    """
    try:
        before, after = safe_load_text(original), safe_load_text(emitted)
    except CorruptYaml:
        return emitted
    old_parts, new_parts = _top_level_segments(original), _top_level_segments(emitted)
    if not isinstance(before, Mapping) or not isinstance(after, Mapping) or old_parts is None or new_parts is None:
        return emitted
    old_header, old_segments = old_parts
    old_by_key = dict(old_segments)
    pieces = [old_header]
    for key, segment in new_parts[1]:
        keep = key in old_by_key and key in before and key in after and before[key] == after[key]
        piece = old_by_key[key] if keep else segment
        if pieces[-1] and not pieces[-1].endswith("\n"):
            pieces[-1] += "\n"
        pieces.append(piece)
    merged = "".join(pieces)
    try:
        if safe_load_text(merged) != after:
            return emitted
    except CorruptYaml:
        return emitted
    return merged

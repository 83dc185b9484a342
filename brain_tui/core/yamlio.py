"""YAML in and out: bounded safe loading, round-trip editing, atomic writes (SPEC 13, DESIGN 5).

Reads use PyYAML's C-accelerated safe loader (libyaml) after a cheap event scan
that refuses anchors, aliases, tags, several documents and deep nesting.
Writes go through ruamel.yaml's round-trip mode, so key order, comments and
unknown keys survive, and every value is quoted by the emitter, never by hand.
Every write is atomic: temp file in the same folder, fsync, rename, folder fsync.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

MAX_FILE_BYTES = 64 * 1024
MAX_DEPTH = 64
TEMP_MARK = ".bsi-tmp-"

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _BrainLoader(_Loader):  # type: ignore[misc,valid-type]
    """Safe loader with YAML 1.2 booleans and timestamps kept as strings.

    ruamel (YAML 1.2) writes ``no``/``on`` unquoted as strings, so the reader
    must not turn them into booleans the way YAML 1.1 would.
    """


_BrainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}
for _first in list(_BrainLoader.yaml_implicit_resolvers):
    _BrainLoader.yaml_implicit_resolvers[_first] = [
        (tag, regexp)
        for tag, regexp in _BrainLoader.yaml_implicit_resolvers[_first]
        if tag != "tag:yaml.org,2002:bool"
    ]
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
for _first in "tTfF":
    _BrainLoader.yaml_implicit_resolvers.setdefault(_first, []).insert(0, ("tag:yaml.org,2002:bool", _BOOL_RE))


class CorruptYaml(Exception):
    """A file that must be shown as one corrupt row.

    Attributes:
        line: 1-based line of the problem (0 when not known).
        reason: one-line reason.
    """

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _check_events(text: str) -> None:
    depth = 0
    documents = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = (event.start_mark.line + 1) if event.start_mark else 0
            if isinstance(event, yaml.AliasEvent):
                raise CorruptYaml(line, "YAML aliases are not allowed")
            if getattr(event, "anchor", None):
                raise CorruptYaml(line, "YAML anchors are not allowed")
            if getattr(event, "tag", None):
                raise CorruptYaml(line, f"YAML tags are not allowed ({event.tag})")
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise CorruptYaml(line, "more than one YAML document")
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise CorruptYaml(line, f"nested deeper than {MAX_DEPTH}")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise CorruptYaml((mark.line + 1) if mark else 0, reason) from None
    except yaml.YAMLError as exc:
        raise CorruptYaml(0, " ".join(str(exc).split())) from None


def safe_load_text(text: str) -> Any:
    """Parse YAML text within the bounds of SPEC 13.

    Raises:
        CorruptYaml: too large, anchors/aliases/tags, too deep, or not valid YAML.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise CorruptYaml(0, f"file larger than {MAX_FILE_BYTES // 1024} KiB")
    _check_events(text)
    try:
        return yaml.load(text, Loader=_BrainLoader)  # noqa: S506 - safe loader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise CorruptYaml((mark.line + 1) if mark else 0, " ".join(str(exc.problem).split())) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise CorruptYaml(0, " ".join(str(exc).split()) or type(exc).__name__) from None


def safe_load_file(path: str | os.PathLike[str]) -> Any:
    """Read and parse one file within the bounds of SPEC 13.

    Raises:
        CorruptYaml: see `safe_load_text`; also for unreadable or non-UTF-8 files.
        FileNotFoundError: the file does not exist.
    """
    with open(path, "rb") as handle:
        raw = handle.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise CorruptYaml(0, f"file larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptYaml(0, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return safe_load_text(text)


def _round_trip() -> YAML:
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096
    rt.indent(mapping=2, sequence=4, offset=2)
    return rt


def load_round_trip(text: str) -> CommentedMap:
    """Parse a file for editing, keeping order, comments and quoting.

    The text must already have passed `safe_load_text`.
    """
    data = _round_trip().load(text)
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        raise CorruptYaml(1, "top level is not a mapping")
    return data


def dump_round_trip(data: Any) -> str:
    """Serialise a mapping (round-trip or plain) to YAML text and prove it reads back.

    Raises:
        CorruptYaml: the emitted text does not pass `safe_load_text` (never written).
    """
    stream = io.StringIO()
    _round_trip().dump(data, stream)
    text = stream.getvalue()
    safe_load_text(text)
    return text


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a file so it is always whole: old or new, never half-written.

    Temp file in the same folder → flush → fsync → os.replace → fsync of the folder.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f"{TEMP_MARK}{target.name}.{os.getpid()}.{secrets.token_hex(4)}"
    data = text.encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    fsync_dir(target.parent)


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """fsync a folder so a rename in it is durable (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sweep_temp_files(folders: list[Path], older_than: float = 0.0) -> list[Path]:
    """Remove stray temp files left by a crashed writer. Call with the brain lock held.

    Returns:
        The paths removed.
    """
    removed: list[Path] = []
    cutoff = time.time() - older_than
    for folder in folders:
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            if entry.name.startswith(TEMP_MARK):
                try:
                    if entry.stat().st_mtime <= cutoff:
                        entry.unlink()
                        removed.append(entry)
                except FileNotFoundError:
                    continue
    return removed

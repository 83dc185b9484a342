"""YAML in and out: bounded safe loading, round-trip editing, atomic writes (SPEC 13, DESIGN 5).

Reads use PyYAML's C-accelerated safe loader (libyaml) after a cheap event scan that refuses anchors, aliases, tags,
several documents and deep nesting. Writes go through ruamel.yaml's round-trip mode, so key order, comments and
unknown keys survive, and every value is quoted by the emitter, never by hand. Every write is atomic: temp file in
the same folder, fsync, rename, folder fsync.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import time
from pathlib import Path

from brain_tui.core.lazy_re import LazyPattern

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

# PyYAML and ruamel are imported on first use: a `bsi` run whose files all come
# from the parse cache (core/records/cache.py) never needs a YAML parser.

MAX_FILE_BYTES = 64 * 1024
MAX_DEPTH = 64
TEMP_MARK = ".bsi-tmp-"

_BOOL_RE = LazyPattern(r"^(?:true|True|TRUE|false|False|FALSE)$")


@functools.cache
def _loaders() -> tuple[type, type]:
    """``(event loader, _BrainLoader)``: PyYAML's C-accelerated safe loader and our subclass of it.

    `_BrainLoader` reads YAML 1.2 booleans and keeps timestamps as strings:
    ruamel (YAML 1.2) writes ``no``/``on`` unquoted as strings, so the reader
    must not turn them into booleans the way YAML 1.1 would.
    """
    import yaml

    base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("_BrainLoader", (base,), {"__doc__": "Safe loader: YAML 1.2 booleans, timestamps as strings."})
    loader.yaml_implicit_resolvers = {  # type: ignore[attr-defined]
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool")]
        for first, resolvers in base.yaml_implicit_resolvers.items()  # type: ignore[attr-defined]
    }
    for first in "tTfF":
        loader.yaml_implicit_resolvers.setdefault(first, []).insert(  # type: ignore[attr-defined]
            0, ("tag:yaml.org,2002:bool", _BOOL_RE.compiled)
        )
    if not getattr(base, "yaml_path_resolvers", None):
        _lean_resolver(loader, yaml)
    base_construct = base.construct_mapping  # type: ignore[attr-defined]

    def construct_mapping(self: Any, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            _refuse_duplicate_keys(node, lambda key_node: self.construct_object(key_node, deep=True))
        return base_construct(self, node, deep)

    loader.construct_mapping = construct_mapping  # type: ignore[attr-defined]
    return base, loader


def _refuse_duplicate_keys(node: Any, construct: Any) -> None:
    """Raise `CorruptYaml` when a mapping node repeats a key (never last-one-wins: SPEC 13)."""
    seen: set[Any] = set()
    for key_node, _value in node.value:
        if key_node.id != "scalar" or key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = construct(key_node)
        try:
            duplicate = key in seen
        except TypeError:
            continue
        if duplicate:
            line = key_node.start_mark.line + 1 if key_node.start_mark else 0
            raise CorruptYaml(line, f"duplicate key {str(key)[:80]!r}")
        seen.add(key)


def _lean_resolver(loader: Any, yaml: Any) -> None:
    """`BaseResolver.resolve` without its per-call list building, and no-op path hooks (none are used).

    The composer calls these once per node; the answers are the same as PyYAML's
    when no path resolver is registered (checked by the caller).
    """
    implicit = loader.yaml_implicit_resolvers
    wildcard = tuple(implicit.get(None, ()))
    table = {first: tuple(resolvers) + wildcard for first, resolvers in implicit.items() if first is not None}
    scalar_node, sequence_node = yaml.ScalarNode, yaml.SequenceNode
    scalar_tag, sequence_tag, mapping_tag = (loader.DEFAULT_SCALAR_TAG, loader.DEFAULT_SEQUENCE_TAG,
                                             loader.DEFAULT_MAPPING_TAG)

    def resolve(_self: Any, kind: Any, value: Any, implicit_flags: Any) -> str:
        if kind is scalar_node:
            if implicit_flags[0]:
                for tag, regexp in table.get(value[:1], wildcard):
                    if regexp.match(value):
                        return str(tag)
            return str(scalar_tag)
        return str(sequence_tag if kind is sequence_node else mapping_tag)

    def no_path(_self: Any, *_args: Any) -> None:
        return None

    loader.resolve = resolve
    loader.descend_resolver = no_path
    loader.ascend_resolver = no_path


class CorruptYaml(Exception):
    """A file shown as one corrupt row: the 1-based `line` of the problem (0 when not known), a one-line `reason`."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _check_events(text: str) -> None:
    import yaml

    depth = 0
    documents = 0
    try:
        for event in yaml.parse(text, Loader=_loaders()[0]):
            line = (event.start_mark.line + 1) if event.start_mark else 0
            if isinstance(event, yaml.AliasEvent):
                raise CorruptYaml(line, "YAML aliases are not allowed")
            if getattr(event, "anchor", None):
                raise CorruptYaml(line, "YAML anchors are not allowed")
            tag = getattr(event, "tag", None)
            if tag:
                raise CorruptYaml(line, f"YAML tags are not allowed ({tag})")
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


#: Without one of these in the text, YAML holds no anchor (&), alias (*), tag (!) or merge key (<<).
_SCAN_TRIGGERS = ("&", "*", "!", "<<")
_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"


class _Unusual(Exception):
    """The fast reader met something it leaves to the full path (which then gives the exact answer)."""


def _fast_load(text: str) -> Any:
    """Load text free of anchors, aliases, tags and merge keys: one parse, no event scan, lean construction.

    The nodes come from the same (C) composer and resolver as `yaml.load`; plain mappings, sequences and str scalars
    are built directly and every other scalar goes through the loader's own constructor, so the data is the same.
    Anything else (too deep, unhashable key, an unknown tag, an error) raises `_Unusual`.
    """
    loader = _loaders()[1](text)
    try:
        node = loader.get_single_node()
        return None if node is None else _build(node, loader, MAX_DEPTH)
    except CorruptYaml:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever it is, the full path decides
        raise _Unusual from exc
    finally:
        loader.dispose()


def _build(node: Any, loader: Any, limit: int) -> Any:
    """One node as `SafeConstructor` would construct it (see `_fast_load`)."""
    tag = node.tag
    if tag == _STR_TAG:
        if node.id != "scalar":
            raise _Unusual
        return node.value
    if node.id == "scalar":
        construct = loader.yaml_constructors.get(tag)
        if construct is None:
            raise _Unusual
        return construct(loader, node)
    if limit <= 0:
        raise _Unusual  # deeper than MAX_DEPTH: the event scan names the line
    if node.id == "sequence" and tag == _SEQ_TAG:
        return [_build(item, loader, limit - 1) for item in node.value]
    if node.id == "mapping" and tag == _MAP_TAG:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.id != "scalar":
                raise _Unusual  # a collection key: unhashable
            key = _build(key_node, loader, limit - 1)
            if key in mapping:
                line = key_node.start_mark.line + 1 if key_node.start_mark else 0
                raise CorruptYaml(line, f"duplicate key {str(key)[:80]!r}")
            mapping[key] = _build(value_node, loader, limit - 1)
        return mapping
    raise _Unusual


def safe_load_text(text: str) -> Any:
    """Parse YAML text within SPEC 13's bounds; CorruptYaml when too large, anchors/aliases/tags, too deep, invalid."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise CorruptYaml(0, f"file larger than {MAX_FILE_BYTES // 1024} KiB")
    import yaml

    if not any(mark in text for mark in _SCAN_TRIGGERS):
        # One parse instead of two. Without these characters the event scan can only refuse
        # nesting deeper than MAX_DEPTH (counted while building: no aliases or merge keys, so the
        # data nests exactly like the events) or invalid YAML; in those cases, and anything else
        # unusual, the full path below runs and gives the very same answer. ~3x faster per file.
        with contextlib.suppress(_Unusual):
            return _fast_load(text)
    _check_events(text)
    try:
        return yaml.load(text, Loader=_loaders()[1])  # noqa: S506 - safe loader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise CorruptYaml((mark.line + 1) if mark else 0, " ".join(str(exc.problem).split())) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise CorruptYaml(0, " ".join(str(exc).split()) or type(exc).__name__) from None


def safe_load_file(path: str | os.PathLike[str], *, plain_first: bool = False) -> Any:
    """Read and parse one file within SPEC 13's bounds (CorruptYaml also when unreadable or not UTF-8).

    `plain_first` tries `yaml_plain.load_plain` first: the same answer for the plain YAML brain-compose.yml is
    usually written in, without importing PyYAML (start-up, issue 18). FileNotFoundError when the file is missing.
    What is no regular file once opened (a FIFO, a link to a device such as /dev/tty) is CorruptYaml, never waited on:
    the open does not block and nothing is read from it."""
    raw = read_capped(path)
    if raw is None:
        raise CorruptYaml(0, "not a regular file")
    if plain_first and len(raw) <= MAX_FILE_BYTES:
        from brain_tui.core.records.yaml_plain import NotPlain, load_plain

        with contextlib.suppress(NotPlain, UnicodeDecodeError):
            return load_plain(raw.decode("utf-8"))
    return safe_load_bytes(raw)


def read_capped(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES + 1, *, follow: bool = True) -> bytes | None:
    """At most `limit` bytes of the file at `path` (all of them when `limit` is negative); None when it is no regular
    file once opened (a FIFO, a link to /dev/zero or /dev/tty): the open does not block and nothing is read from it.
    OSError when it cannot be opened (with `follow=False`, also when `path` is a symbolic link)."""
    fd = open_regular(path, os.O_RDONLY | (0 if follow else getattr(os, "O_NOFOLLOW", 0)))
    if fd is None:
        return None
    with open(fd, "rb") as handle:
        return handle.read(limit)


def open_regular(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int | None:
    """A descriptor of the regular file at `path` opened with `flags` (plus O_NONBLOCK: a FIFO's open never waits);
    None, nothing left open, when it is no regular file once opened (a FIFO, a device, a folder). OSError when it
    cannot be opened."""
    import stat

    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), mode)
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:  # a folder too: `open(fd)` of one raises and leaves the descriptor open
        os.close(fd)
        return None
    return fd


def safe_load_bytes(raw: bytes) -> Any:
    """Parse a file's bytes as `safe_load_file` does after reading (CorruptYaml also for non-UTF-8 bytes)."""
    if len(raw) > MAX_FILE_BYTES:
        raise CorruptYaml(0, f"file larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptYaml(0, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return safe_load_text(text)


def _round_trip() -> YAML:
    from enum import StrEnum

    from ruamel.yaml import YAML

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096
    rt.indent(mapping=2, sequence=4, offset=2)
    # A vocabulary member (`statuses.Status`…) is written as the plain string it equals.
    rt.representer.add_multi_representer(StrEnum, lambda rep, member: rep.represent_str(member.value))
    return rt


def load_round_trip(text: str) -> CommentedMap:
    """Parse a file for editing, keeping order, comments and quoting.

    The text must already have passed `safe_load_text`. A text that reader takes and the editing parser
    refuses (a tab after ``key:``, as hand edits leave; an unquoted date that is none, ``2026-13-45``) is edited
    from what it holds: its comments and layout are not kept, its data is.
    """
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    try:
        data = _round_trip().load(text)
    except (YAMLError, ValueError):  # ValueError: a scalar it reads as a date that is none (month 13)
        data = _commented(safe_load_text(text))
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        raise CorruptYaml(1, "top level is not a mapping")
    return data


def _commented(value: Any) -> Any:
    """Plain parsed data as the editing parser's types (mappings and lists, recursively)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        return CommentedMap((key, _commented(item)) for key, item in value.items())
    if isinstance(value, list):
        return CommentedSeq(_commented(item) for item in value)
    return value


def dump_round_trip(data: Any) -> str:
    """Serialise a mapping (round-trip or plain) to YAML text proven to read back (else CorruptYaml: never written)."""
    stream = io.StringIO()
    _round_trip().dump(data, stream)
    text = stream.getvalue()
    safe_load_text(text)
    return text


def atomic_write_text(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
    """Write a file so it is always whole: old or new, never half-written.

    Temp file in the same folder → flush → fsync → os.replace → fsync of the folder. `errors`: how the text is
    encoded to UTF-8 (``surrogateescape``: the bytes that were not UTF-8 where the text was read, as they were).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    import secrets  # the write path's only

    tmp = target.parent / f"{TEMP_MARK}{target.name}.{os.getpid()}.{secrets.token_hex(4)}"
    data = text.encode("utf-8", errors)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:  # a read-only or full folder: the refusal names the file being written
        raise _naming(exc, target) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if isinstance(exc, OSError):  # a full disk, a folder where the file goes
            raise _naming(exc, target) from exc
        raise
    fsync_dir(target.parent)


def _naming(exc: OSError, target: Path) -> OSError:
    """`exc` as the same error on `target`: the user is told of the file the command writes, never of the
    `.bsi-tmp-…` name it was being written under (gone once the write failed)."""
    return OSError(exc.errno, exc.strerror, str(target)) if exc.errno is not None else exc


def make_state_dir(state: Path) -> None:
    """Create the brain's ``.brain/`` folder when missing, with a ``.gitignore`` of ``*``.

    Local state is never committed, even where the brain's own .gitignore forgot it.
    """
    if not state.is_dir():
        state.mkdir(parents=False, exist_ok=True)
        ignore = state / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")


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
    """Remove (and return) stray temp files left by a crashed writer. Call with the brain lock held."""
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


#: The writer's process ID in a temp file's name: ``….<pid>`` (the closed set) or ``….<pid>.<8 hex>``.
_TEMP_PID = LazyPattern(r"\.(\d+)(?:\.[0-9a-f]{8})?$")


def _alive(pid: int) -> bool:
    """Whether a process `pid` exists (one we may not signal exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_dead_temps(folder: Path) -> list[Path]:
    """Remove (and return) the temp files in `folder` whose writer is gone: a read killed while it stored a cache.

    `.brain/` is written outside the journal (the closed set, the hook index, caches) by readers
    that hold no lock, so its temp files are swept by their writer's life, not by age: a live
    writer's file is never touched, and one with no process ID in its name is left alone."""
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        found = _TEMP_PID.search(name) if name.startswith(TEMP_MARK) else None
        if found is None or int(found.group(1)) == os.getpid() or _alive(int(found.group(1))):
            continue
        with contextlib.suppress(OSError):
            (folder / name).unlink()
            removed.append(folder / name)
    return removed

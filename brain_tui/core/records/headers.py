"""brain-language headers (ADR-010, SPEC 18): read only the header, check it against the closed lists.

Markdown files carry YAML front matter with a ``brain:`` block::

    ---
    brain:
      version: 1
      type: protocol        # invariant | context | reference | personal | protocol | work
      scope: kernel         # kernel | satellite | instance | work
      lifecycle: permanent  # session | sprint | stable | permanent
      read: header          # header | full | trigger
      triggers: [sprint]    # closed list
      export: true          # boolean
    ---

Code files carry the same block in a leading comment (``# brain:`` or ``// brain:`` followed by indented comment
lines). Only the first `HEADER_READ_LIMIT` bytes of a file are ever read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE
from brain_tui.core.paths.scope import MARKDOWN_SUFFIXES  # (the files whose `##` sections a scope names too)
from brain_tui.core.record import record
from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

#: Bytes read from the start of each file; a header must end within them.
HEADER_READ_LIMIT = 8 * 1024

TYPES = ("invariant", "context", "reference", "personal", "protocol", "work")
SCOPES = ("kernel", "satellite", "instance", "work")
LIFECYCLES = ("session", "sprint", "stable", "permanent")
READS = ("header", "full", "trigger")
TRIGGERS = ("sprint", "use-brain", "build-brain", "coach", "audit", "deploy", "migration", "on-demand")
#: Required fields with their closed lists.
CLOSED_FIELDS: dict[str, tuple[str, ...]] = {
    "type": TYPES,
    "scope": SCOPES,
    "lifecycle": LIFECYCLES,
    "read": READS,
}

CODE_SUFFIXES = frozenset({
    ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java",
    ".kt", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".yml", ".yaml",
    ".toml",
})
#: Top-level folders of the brain that hold data, not brain-language files.
SKIP_TOP_DIRS = frozenset(DATA_DIRS)
#: Folders skipped anywhere (hidden folders such as .git and .brain are skipped too).
SKIP_DIRS = frozenset({"node_modules", "__pycache__"})
SKIP_TOP_FILES = frozenset({INDEX_FILE})
_COMMENT_PREFIXES = ("//", "#")


@record
class Finding(JsonShaped):
    """One lint problem: `path` (brain-relative when inside it), 1-based `line`, `field` (`header` when the
    header is missing or unreadable) and `message` (what is wrong and what is allowed)."""

    path: str
    line: int
    field: str
    message: str


@record
class Header:
    """A parsed header: the ``brain:`` mapping, its file `line`, the file `lines` of each field (and trigger)."""

    brain: Mapping[str, Any]
    line: int
    lines: Mapping[str, int]


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lines(data: bytes, whole: bool) -> list[bytes]:
    """Split into lines without their endings; a last line cut by the read limit is dropped."""
    parts = data.split(b"\n")
    if parts and (not whole or parts[-1] == b""):
        parts = parts[:-1]
    return [p[:-1] if p.endswith(b"\r") else p for p in parts]


def _field_lines(text: str, base: int) -> tuple[int, dict[str, int]]:
    """File lines of the ``brain:`` key and of each of its fields (the text already passed the bounded loader)."""
    lines: dict[str, int] = {}
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return base, lines
    brain_line = base
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "brain":
                brain_line = base + key.start_mark.line
                node = value
                break
        else:
            return brain_line, lines
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                continue
            lines[key.value] = base + key.start_mark.line
            if isinstance(value, yaml.SequenceNode):
                for i, item in enumerate(value.value):
                    lines[f"{key.value}[{i}]"] = base + item.start_mark.line
    return brain_line, lines


def _parse_yaml(rel: str, text: str, base: int) -> tuple[Any, list[Finding]]:
    try:
        return safe_load_text(text), []
    except CorruptYaml as exc:
        line = base + max(exc.line - 1, 0)
        return None, [Finding(rel, line, "header", f"header is not valid YAML: {exc.reason}")]


def _markdown_header(rel: str, data: bytes, whole: bool) -> tuple[Header | None, list[Finding]]:
    lines = _lines(data, whole)
    if not lines or lines[0].rstrip() != b"---":
        return None, [Finding(rel, 1, "header", "no brain-language header (YAML front matter with a brain: block)")]
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (b"---", b"...")), None)
    if end is None:
        where = "" if whole else f" within the first {HEADER_READ_LIMIT // 1024} KiB"
        return None, [Finding(rel, 1, "header", f"front matter is not closed by a --- line{where}")]
    try:
        text = b"\n".join(lines[1:end]).decode("utf-8")
    except UnicodeDecodeError:
        return None, [Finding(rel, 1, "header", "front matter is not UTF-8 text")]
    doc, problems = _parse_yaml(rel, text, 2)
    if problems:
        return None, problems
    if not isinstance(doc, Mapping):
        return None, [Finding(rel, 1, "header", "front matter is not a mapping")]
    if "brain" not in doc:
        return None, [Finding(rel, 1, "brain", "front matter has no brain: block (brain-language header)")]
    brain_line, field_lines = _field_lines(text, 2)
    if not isinstance(doc["brain"], Mapping):
        return None, [Finding(rel, brain_line, "brain", "brain: is not a mapping of header fields")]
    return Header(doc["brain"], brain_line, field_lines), []


def _comment_body(line: str) -> tuple[str, str] | None:
    """(prefix, text after it) for a comment line, else None."""
    stripped = line.lstrip()
    for prefix in _COMMENT_PREFIXES:
        if stripped.startswith(prefix):
            return prefix, stripped[len(prefix):]
    return None


def _code_header(rel: str, data: bytes, whole: bool) -> tuple[Header | None, list[Finding]]:
    raw_lines = _lines(data, whole)
    missing = [Finding(rel, 1, "header", "no brain-language header (a leading `# brain:` or `// brain:` comment "
                                         "block)")]
    decoded: list[str] = []
    for i, raw in enumerate(raw_lines):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            break
        if i == 0 and line.startswith("#!"):
            decoded.append("")
            continue
        if line.strip() and _comment_body(line) is None:
            break
        decoded.append(line)
    start = None
    prefix = first = ""
    for i, line in enumerate(decoded):
        body = _comment_body(line)
        if body is not None and body[1].lstrip().startswith("brain:"):
            start, (prefix, first) = i, body
            break
    if start is None:
        return None, missing
    indent = len(first) - len(first.lstrip())
    block = [first[indent:]]
    for line in decoded[start + 1:]:
        body = _comment_body(line)
        if body is None or body[0] != prefix:
            break
        text = body[1]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        block.append(text[indent:])
    base = start + 1
    text = "\n".join(block)
    doc, problems = _parse_yaml(rel, text, base)
    if problems:
        return None, problems
    if not isinstance(doc, Mapping) or not isinstance(doc.get("brain"), Mapping):
        return None, [Finding(rel, base, "brain", "brain: is not a mapping of header fields")]
    brain_line, field_lines = _field_lines(text, base)
    return Header(doc["brain"], brain_line, field_lines), []


def read_header(path: str | os.PathLike[str], rel: str | None = None) -> tuple[Header | None, list[Finding]]:
    """``(header or None, findings)`` of one file's brain-language header (front matter for a markdown suffix, else
    a comment block), reading at most HEADER_READ_LIMIT bytes; `rel` names it in findings."""
    name = rel or str(path)
    is_md = Path(path).suffix.lower() in MARKDOWN_SUFFIXES
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return None, [Finding(name, 0, "header", "not a regular file")]
        with open(path, "rb") as handle:
            data = handle.read(HEADER_READ_LIMIT + 1)
    except OSError as exc:
        return None, [Finding(name, 0, "header", f"cannot read: {exc.strerror or exc}")]
    whole = len(data) <= HEADER_READ_LIMIT  # else a last line cut by the limit is dropped (`_lines`)
    head = data[:HEADER_READ_LIMIT].removeprefix(b"\xef\xbb\xbf")
    return (_markdown_header if is_md else _code_header)(name, head, whole)


def check_header(header: Header, rel: str) -> list[Finding]:
    """Check the fields of a header against the closed lists of ADR-010."""
    brain = header.brain
    found: list[Finding] = []

    def line_of(key: str) -> int:
        return header.lines.get(key, header.line)

    for key, allowed in CLOSED_FIELDS.items():
        if key not in brain:
            found.append(Finding(rel, header.line, key, f"missing {key}: expected one of {' | '.join(allowed)}"))
            continue
        value = brain[key]
        if not isinstance(value, str) or value not in allowed:
            found.append(Finding(rel, line_of(key), key,
                                 f"invalid {key} {_show(value)}: expected one of {' | '.join(allowed)}"))
    triggers = brain.get("triggers")
    if "triggers" in brain and triggers is not None:
        if not isinstance(triggers, list):
            found.append(Finding(rel, line_of("triggers"), "triggers",
                                 f"triggers must be a list, got {_show(triggers)}"))
        else:
            for i, trigger in enumerate(triggers):
                if not isinstance(trigger, str) or trigger not in TRIGGERS:
                    found.append(Finding(rel, header.lines.get(f"triggers[{i}]", line_of("triggers")), "triggers",
                                         f"trigger {_show(trigger)} is not in the closed list: "
                                         f"{' | '.join(TRIGGERS)}"))
    if brain.get("read") == "trigger" and not (isinstance(triggers, list) and triggers):
        found.append(Finding(rel, line_of("triggers") if "triggers" in brain else line_of("read"), "triggers",
                             "read: trigger needs at least one trigger"))
    if "export" in brain and not isinstance(brain["export"], bool):
        found.append(Finding(rel, line_of("export"), "export",
                             f"export must be a boolean (true or false), got {_show(brain['export'])}"))
    return found


def lint_file(path: str | os.PathLike[str], rel: str | None = None) -> list[Finding]:
    """All findings for one file (reads only its header)."""
    name = rel or str(path)
    header, problems = read_header(path, name)
    if header is None:
        return problems
    return check_header(header, name)


def is_lintable(path: Path) -> bool:
    """True for markdown and code files."""
    suffix = path.suffix.lower()
    return suffix in MARKDOWN_SUFFIXES or suffix in CODE_SUFFIXES


def iter_brain_files(root: str | os.PathLike[str], start: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """Markdown and code files under `start` (default: the root), in a stable order.

    Skips hidden folders (.git, .brain…), node_modules, __pycache__, the brain's
    data folders (claims, signals, locks, breath), BRAIN-INDEX.md and symlinks.
    """
    base = Path(root)
    top = Path(start) if start is not None else base
    for folder, dirnames, filenames in os.walk(top):
        here = Path(folder)
        at_root = here == base
        dirnames[:] = sorted(
            d for d in dirnames
            if not d.startswith(".") and d not in SKIP_DIRS and not (at_root and d in SKIP_TOP_DIRS)
        )
        for name in sorted(filenames):
            if at_root and name in SKIP_TOP_FILES:
                continue
            path = here / name
            if not is_lintable(path):
                continue
            try:
                if not stat.S_ISREG(path.lstat().st_mode):
                    continue
            except OSError:
                continue
            yield path


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def lint(root: str | os.PathLike[str], paths: Iterable[str | os.PathLike[str]] | None = None) -> list[Finding]:
    """`bsi lint`: the findings, in file order, of the given files and folders (relative to `root`), or of the
    whole brain; raises FileNotFoundError for a missing path, InvalidData (65) for one outside the brain."""
    base = Path(root)
    targets: list[Path] = []
    if paths is None:
        targets.extend(iter_brain_files(base))
    else:
        inside = base.resolve()
        for given in paths:
            path = Path(given)
            if not path.is_absolute():
                path = base / path
            if not path.resolve().is_relative_to(inside):
                from brain_tui.core.errors import InvalidData

                raise InvalidData(f"{given} is outside the brain ({inside}): lint reads only the brain's files")
            if path.is_dir():
                targets.extend(iter_brain_files(base, path))
            elif path.exists():
                targets.append(path)
            else:
                raise FileNotFoundError(str(given))
    findings: list[Finding] = []
    seen: set[str] = set()
    for path in targets:
        rel = _relative(base, path)
        if rel in seen:
            continue
        seen.add(rel)
        findings.extend(lint_file(path, rel))
    return findings


def lint_given(root: str | os.PathLike[str], given: Iterable[str] | None = None) -> list[Finding]:
    """`bsi lint [PATHS]`: lint paths as typed (existing here as is, else under the brain), or the whole brain.

    Raises:
        NotFound: a path exists neither here nor in the brain (66).
        InvalidData: a path is blank, or a file cannot be read (65)."""
    from brain_tui.core.errors import InvalidData, NotFound

    base = Path(root)
    paths: list[str] | None = None
    if given:
        paths = []
        for text in given:
            if not text.strip():  # Path("") is ".": an unset variable must not lint the whole folder
                raise InvalidData("an empty path names no file to lint")
            here = Path(text)
            if here.is_absolute() or os.path.lexists(here):
                paths.append(str(here.resolve()) if os.path.lexists(here) else text)
            elif (base / text).exists():
                paths.append(str(base / text))
            else:
                raise NotFound(f"no such file: {text}")
    try:
        return lint(base, paths)
    except FileNotFoundError as exc:
        raise NotFound(f"no such file: {exc}") from None
    except OSError as exc:
        raise InvalidData(f"cannot lint: {exc}") from None

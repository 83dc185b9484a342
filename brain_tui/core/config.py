"""brain-compose.yml, read with a tolerant loader (SPEC 12).

Its `notify:` key is read here too; the notices themselves are in `core.sessions.notify`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path

from brain_tui.core.clock import DEFAULT_TTL, parse_duration, usable_zone_name
from brain_tui.core.errors import InvalidData
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.layout import CONFIG_FILE, INDEX_FILE
from brain_tui.core.record import field, record
from brain_tui.core.records.yamlio import MAX_DEPTH, CorruptYaml, safe_load_file

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, Literal
    UnclaimedWrites = Literal["allow", "warn", "deny"]

DEFAULT_KERNEL_ZONE = (
    "agents/",
    "profil/",
    "scripts/",
    "KERNEL.md",
    "CLAUDE.md",
    "PATHS.md",
    CONFIG_FILE,
    "brain-constitution.md",
    INDEX_FILE,
)
DEFAULT_PERSONAL_ZONE = ("profil/capital.md", "profil/objectifs.md", "progression/", "MYSECRETS")
DEFAULT_MAX_FAILS = 3
#: `hooks.unclaimed_writes`: what a write by a session holding no claim meets (SPEC 20.2).
UNCLAIMED_MODES: tuple[UnclaimedWrites, ...] = ("allow", "warn", "deny")

#: What a `notify.command` element may name, each filled with one inert line.
NOTIFY_PLACEHOLDERS = ("kind", "sess_id", "summary", "key", "brain")
#: A placeholder in a `notify.command` element: `{name}`.
PLACEHOLDER_RE = LazyPattern(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@record
class NotifySetting:
    """The `notify:` key as read.

    Attributes:
        enabled: False for ``notify: off`` (no command; the cockpit's escapes follow `--no-bell`).
        command: the argv template, empty when none is configured.
        problem: why the key was not used as written (shown by the cockpit), or None.
    """

    enabled: bool = True
    command: tuple[str, ...] = ()
    problem: str | None = None


def parse_notify(value: Any) -> NotifySetting:
    """Read the `notify:` value: ``off``/``false``, or ``{command: [program, arg, …]}``.

    An unusable value gives no command, with `problem` set; it never raises.
    """
    if value is None:
        return NotifySetting()
    if value is False or (isinstance(value, str) and value.strip().lower() in ("off", "false", "no")):
        return NotifySetting(enabled=False)
    command = value.get("command") if isinstance(value, Mapping) else None
    if isinstance(command, list) and command and (problem := argv_element_problem("notify.command", command)):
        return NotifySetting(problem=f"{problem}; no command runs")
    if not isinstance(command, list) or not command or not all(isinstance(v, str) for v in command):
        return NotifySetting(problem="notify: expected `off` or `command: [program, arg, …]` (an argv list, "
                                     "not a shell string); no command runs")
    try:
        check_template(command)
    except InvalidData as exc:
        return NotifySetting(problem=f"{exc}; no command runs")
    return NotifySetting(command=tuple(command))


def argv_element_problem(key: str, argv: Sequence[Any], *, numbers: bool = False) -> str | None:
    """Why an element of the argv list `key` of brain-compose.yml is no text, naming it (from 1) and the quoting
    that makes it one (`true`, `off`, `null`, `3` are no strings to YAML); None when every element is text (or,
    with `numbers`, a number, which the caller writes as it reads)."""
    for index, item in enumerate(argv, 1):
        if isinstance(item, str) or (numbers and isinstance(item, int | float) and not isinstance(item, bool)):
            continue
        if isinstance(item, bool):
            kind, word = "a YAML boolean", str(item).lower()
        elif item is None:
            kind, word = "YAML null", "null"
        elif isinstance(item, int | float):
            kind, word = "a YAML number", str(item)
        else:
            kind = "a list" if isinstance(item, list) else "a mapping" if isinstance(item, Mapping) else "no text"
            return f"{key}: element {index} is {kind}: each element is one word of the command, one string"
        return f'{key}: element {index} is {kind}, not text: quote it ("{word}")'
    return None


def template_placeholders(key: str, element: str, known: Sequence[str]) -> list[str]:
    """The ``{name}`` placeholders of one argv template element (`key`: the setting, for the message); InvalidData
    for a placeholder not in `known`."""
    names: list[str] = PLACEHOLDER_RE.findall(element)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InvalidData(f"{key}: unknown placeholder {{{unknown[0]}}}; known: "
                          + " ".join(f"{{{p}}}" for p in known))
    return names


def check_template(template: Sequence[str]) -> None:
    """Raise InvalidData unless `template` is a usable `notify.command`: empty, an unknown placeholder, or a
    placeholder or ``=`` in the program name."""
    if not template or not template[0].strip():
        raise InvalidData("notify.command is empty")
    for index, element in enumerate(template):
        names = template_placeholders("notify.command", element, NOTIFY_PLACEHOLDERS)
        if index == 0 and names:
            raise InvalidData("notify.command: the program (first element) cannot come from a placeholder")
    if "=" in template[0]:
        raise InvalidData("notify.command: the program name cannot hold '='")



@record
class BrainConfig:
    """The keys of brain-compose.yml the product uses, with their defaults.

    A file that does not parse gives the defaults with `problem` set, except where a
    default would be the lenient choice: `unclaimed_writes` is then ``deny`` (SPEC 22:
    an unreadable brain-compose.yml keeps the hooks at their strictest).
    """

    brain_name: str | None = None
    #: The IANA zone `timezone:` names (a value that names none is ignored: `timezone_problem` says so).
    timezone: str | None = None
    #: Why `timezone:` was ignored, or None.
    timezone_problem: str | None = None
    kerneluser: bool = False
    max_consecutive_fails: int = DEFAULT_MAX_FAILS
    kernel_zone: tuple[str, ...] = DEFAULT_KERNEL_ZONE
    personal_zone: tuple[str, ...] = DEFAULT_PERSONAL_ZONE
    sync: str = "manual"
    #: Why `sync:` was not read as written (it names no mode), or None.
    sync_problem: str | None = None
    #: The `zones.kernel` entries that name no path of the brain (a file glob such as `*.md`, `..`), skipped, or None.
    zone_problem: str | None = None
    ttl_default: timedelta = DEFAULT_TTL
    pm2: bool | None = None
    #: `ports:` entries as written (name → value): whether a value is a port number is for the environment
    #: to say beside that name (SPEC 16), so a mistyped port shows rather than vanishes.
    ports: Mapping[str, Any] = field(default_factory=dict)
    #: Why `ports:` itself was not used (it is not a mapping), or None.
    ports_problem: str | None = None
    fetch_interval_s: int = 30
    unclaimed_writes: UnclaimedWrites = "warn"
    notify: NotifySetting = field(default_factory=NotifySetting)
    raw: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None

    def warnings(self, *, reading: bool = True) -> list[str]:
        """What is said of the file on every read (`bsi`'s stderr, the cockpit at start): a file that does not
        parse (unless `reading` is False: a write refuses it with its own error), a `timezone:` or `sync:` not read
        as written, a kernel-zone entry that protects nothing."""
        notes = [f"{self.problem}; defaults used, writes are refused"] if reading and self.problem else []
        return notes + [note for note in (self.timezone_problem, self.sync_problem, self.zone_problem) if note]


def _find_max_fails(node: Any, depth: int = 0) -> int | None:
    """Find `circuit_breaker.max_consecutive_fails` anywhere: at top level first, else under any mode, whether the
    modes are a mapping or a list, at any depth the file may nest (the loader already bounds it)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, list):
        children: Sequence[Any] = node
    elif isinstance(node, Mapping):
        breaker = node.get("circuit_breaker")
        if isinstance(breaker, Mapping):
            value = breaker.get("max_consecutive_fails")
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        children = list(node.values())
    else:
        return None
    for child in children:
        found = _find_max_fails(child, depth + 1)
        if found is not None:
            return found
    return None


def _str_tuple(value: Any, default: tuple[str, ...]) -> tuple[str, ...]:
    """A zone list as written: a string of entries, or a list whose entries are kept whatever else it holds (a number
    is the folder of that name, `- 2024`; an empty or nested item is skipped): one odd item never drops the user's
    own entries for the default's. Anything else is the default."""
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(str(v) for v in value
                     if isinstance(v, str) or (isinstance(v, (int, float)) and not isinstance(v, bool)))
    return default


def write_mode(config: BrainConfig) -> str:
    """The write mode `sync:` asks (`core.brain.Brain.sync_mode`): every write through the remote (`auto`), else
    local."""
    return "sync" if config.sync == "auto" else "local"


def load_config(root: str | Path) -> BrainConfig:
    """Read brain-compose.yml tolerantly: unknown keys ignored, bad values defaulted.

    A missing file gives the defaults; an unreadable one gives the defaults with `problem` set, so callers can show it.
    """
    path = Path(root) / CONFIG_FILE
    try:
        raw = safe_load_file(path, plain_first=True)
    except FileNotFoundError:
        return BrainConfig()
    except CorruptYaml as exc:
        return _unreadable(f"{path} line {max(exc.line, 1)}: {exc.reason}")
    except OSError as exc:
        return _unreadable(f"{path}: cannot read it ({exc.strerror})")
    if raw is None:
        return BrainConfig()
    if not isinstance(raw, Mapping):
        return _unreadable(f"{path} line 1: the top level is not a mapping of keys")
    zones_raw = raw.get("zones")
    zones: Mapping[str, Any] = zones_raw if isinstance(zones_raw, Mapping) else {}
    ttl = DEFAULT_TTL
    if raw.get("ttl_default") is not None:
        try:
            ttl = parse_duration(str(raw["ttl_default"]), what="ttl_default")
        except InvalidData:
            ttl = DEFAULT_TTL
    ports_raw = raw.get("ports")
    ports = {str(name): number for name, number in ports_raw.items()} if isinstance(ports_raw, Mapping) else {}
    ports_problem = None if ports_raw is None or isinstance(ports_raw, Mapping) else (
        "ports: expected a mapping of name: port number")
    sync_mode, sync_problem = _sync_mode(raw.get("sync"))
    interval = raw.get("fetch_interval")
    hooks = raw.get("hooks")
    unclaimed = hooks.get("unclaimed_writes") if isinstance(hooks, Mapping) else None
    return BrainConfig(
        brain_name=_brain_name(raw.get("brain_name")),
        timezone=usable_zone_name(raw.get("timezone")),
        timezone_problem=_timezone_problem(raw.get("timezone")),
        kerneluser=raw.get("kerneluser") is True,
        max_consecutive_fails=_find_max_fails(raw) or DEFAULT_MAX_FAILS,
        kernel_zone=(kernel := _str_tuple(zones.get("kernel"), DEFAULT_KERNEL_ZONE)),
        zone_problem=_zone_problem(kernel),
        personal_zone=_str_tuple(zones.get("personal"), DEFAULT_PERSONAL_ZONE),
        sync=sync_mode,
        sync_problem=sync_problem,
        ttl_default=ttl,
        pm2=raw.get("pm2") if isinstance(raw.get("pm2"), bool) else None,
        ports=ports,
        ports_problem=ports_problem,
        fetch_interval_s=interval if isinstance(interval, int) and interval > 0 else 30,
        unclaimed_writes=_unclaimed_mode(unclaimed),
        notify=parse_notify(raw.get("notify")),
        raw=raw,
    )


def sync_written(text: str) -> str:
    """The `sync:` mode a brain-compose.yml `text` names (auto, manual or off); manual when it does not parse."""
    from brain_tui.core.records.yamlio import safe_load_text

    try:
        raw = safe_load_text(text)
    except CorruptYaml:
        return "manual"
    return _sync_mode(raw.get("sync"))[0] if isinstance(raw, Mapping) else "manual"


def _sync_mode(value: Any) -> tuple[str, str | None]:
    """`sync:` as a mode (any case and spacing; a boolean is auto or off; absent or blank: manual), and why a
    value naming no mode was not used (manual then applies), else None."""
    if isinstance(value, bool):
        return ("auto" if value else "off"), None
    text = value.strip().lower() if isinstance(value, str) else None
    if value is None or text == "":
        return "manual", None
    if text in ("auto", "manual", "off"):
        return text, None
    shown = value.strip() if isinstance(value, str) else value
    return "manual", (f"brain-compose.yml sync: {str(shown)[:80]!r} is not auto, manual or off; manual applies "
                      "(writes are committed here and pushed by `bsi sync` only)")


def _timezone_problem(value: Any) -> str | None:
    """Why a `timezone:` value is ignored (it names no zone), or None when it is absent, blank or usable."""
    if value is None or (isinstance(value, str) and not value.strip()) or usable_zone_name(value) is not None:
        return None
    shown = value.strip() if isinstance(value, str) else value
    return (f"brain-compose.yml timezone: {str(shown)[:80]!r} is not a known zone (an IANA name such as "
            "Europe/Paris); ignored: times without an offset are read in this machine's zone, the index shows UTC")


def _zone_problem(kernel: tuple[str, ...]) -> str | None:
    """Why some `zones.kernel` entries protect nothing (they name no path of the brain: `*.md`, `..`), or None."""
    from brain_tui.core.paths.scope_paths import zone_entries

    skipped = [entry for entry in kernel if not zone_entries([entry])]
    if not skipped:
        return None
    shown = ", ".join(repr(entry[:60]) for entry in skipped[:5]) + (" …" if len(skipped) > 5 else "")
    return (f"brain-compose.yml zones.kernel: {shown} names no path of the brain (a folder, a file, `*` for all; "
            "not a file pattern): it protects nothing")


def _brain_name(value: Any) -> str | None:
    """`brain_name` as a name: a string or a number, blanks trimmed; a list, a mapping or a boolean is none."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value).strip() or None


def default_instance(brain_name: str, machine: str) -> str:
    """The default instance `brain_name@machine` (SPEC 4), always one that reads as an instance.

    A character that cannot stand in it (`@`, a slash, a control or invisible character) becomes `-`, so a
    brain folder named `me@work` gives `me-work@host` rather than every open refused for an `--instance`
    nobody gave; the host name is made one word a signal's sender can hold (`ids.machine_part`: `my box` →
    `my-box`).
    """
    import unicodedata

    from brain_tui.core.ids import machine_part

    kept = "".join("-" if c in "@/\\" or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c
                   for c in brain_name)
    return f"{kept.strip() or 'brain'}@{machine_part(machine)}"


def _unreadable(problem: str) -> BrainConfig:
    """The configuration of a brain-compose.yml that does not read: defaults, at their strictest for the hooks."""
    return BrainConfig(problem=problem, unclaimed_writes="deny")


def _unclaimed_mode(value: Any) -> UnclaimedWrites:
    """`hooks.unclaimed_writes` as written (case and spaces aside): ``warn`` when absent, ``deny`` when it is no mode.

    A value that is none of the three (``dney``, ``no``, ``maybe``) is a setting whose author meant something:
    the hooks take the strictest, as for a file that does not read (SPEC 22), and the refusal says why.
    """
    if value is None:
        return "warn"
    text = value.strip().lower() if isinstance(value, str) else ""
    for mode in UNCLAIMED_MODES:
        if text == mode:
            return mode
    return "deny"


def unclaimed_written(config: BrainConfig) -> str | None:
    """The `hooks.unclaimed_writes` text as written when it names no mode (the reason its hooks deny), else None."""
    hooks = config.raw.get("hooks")
    value = hooks.get("unclaimed_writes") if isinstance(hooks, Mapping) else None
    if value is None or (isinstance(value, str) and value.strip().lower() in UNCLAIMED_MODES):
        return None
    return str(value)


class ConfigFile:
    """brain-compose.yml as a long-lived process (the cockpit) holds it: read again once the file changed, so a
    write is decided on the file as it is now, as a `bsi` command would decide it. One thread reads it again at a
    time (`bsi mcp` answers tool calls side by side): the key, the configuration and its vouching change together."""

    def __init__(self, root: str | Path) -> None:
        self.path = Path(root) / CONFIG_FILE
        self._reading = threading.Lock()
        self._key, self._vouches = self._stat(), False
        self.config = load_config(root)
        self._vouches = self._settled(self._key)

    def _stat(self) -> tuple[int, int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino

    @staticmethod
    def _settled(key: tuple[int, int, int, int] | None) -> bool:
        """True when `key` can vouch for the content read with it: its last change is older than the racy
        window (`records.cache.RACY_NS`, git's rule), so a second same-size write in that tick cannot hide."""
        import time

        from brain_tui.core.records.cache import RACY_NS

        return key is None or time.time_ns() - max(key[0], key[1]) >= RACY_NS

    def current(self) -> BrainConfig:
        """The configuration as the file is now (read again when its stat moved, or is too fresh to tell)."""
        with self._reading:
            key = self._stat()
            if key != self._key or not self._vouches:
                self._key, self.config = key, load_config(self.path.parent)
                self._vouches = self._settled(key)
            return self.config

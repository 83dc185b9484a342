"""IDs: the shape of session and signal IDs, finding one in text, and making fresh ones.

`sess-YYYYMMDD-HHMM-<slug>` and `sig-YYYYMMDD-HHMMSS-<slug>` in the brain's timezone; the slug is random (reproducible
with `seed_ids` for demos and snapshot tests). An ID is also a file name, so a valid one is never a path.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import PurePosixPath

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.path_keys import path_key
from brain_tui.core.records.model import BrainSnapshot

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    import random

SESSION_ID_RE = LazyPattern(r"^sess-[A-Za-z0-9._-]+\Z")
SIGNAL_ID_RE = LazyPattern(r"^sig-[A-Za-z0-9._-]+\Z")
#: A signal type: one uppercase word (SPEC 7). A file's type is read upper-cased only when that makes it one.
SIGNAL_TYPE_RE = LazyPattern(r"^[A-Z][A-Z0-9_]*\Z")
#: `string.ascii_lowercase + string.digits`, spelled out: `string` costs every read its import (start-up, issue 18).
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
#: The characters of an ID: what may not stand right before one found in text.
_ID_CHARS = "A-Za-z0-9._-"
#: The generator of slugs: the system's (`secrets`) until `seed_ids`; made on first use, as a read needs none.
_rng: random.Random | None = None


#: The opening minute a canonical ID carries (SPEC 4: `sess-YYYYMMDD-HHMM-<slug>`, local time of opening).
_ID_MINUTE_RE = LazyPattern(r"^sess-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(?:-|$)")


def opened_minute(sess_id: str) -> tuple[int, int, int, int, int] | None:
    """(year, month, day, hour, minute) of the opening that a canonical session ID names, else None."""
    match = _ID_MINUTE_RE.match(sess_id)
    if match is None:
        return None
    year, month, day, hour, minute = (int(g) for g in match.groups())
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60):
        return None
    return year, month, day, hour, minute


def valid_session_id(sess_id: str) -> bool:
    """True when `sess_id` is a readable session ID (never a path)."""
    return bool(SESSION_ID_RE.match(sess_id)) and sess_id not in (".", "..")


#: The machine part of an instance: one word a signal's sender and address can hold (SPEC 7).
MACHINE_RE = LazyPattern(r"^[A-Za-z0-9._:+-]{1,200}\Z")
#: A run of characters a machine part cannot hold (`machine_part` makes each run one `-`).
_NOT_MACHINE_RE = LazyPattern(r"[^A-Za-z0-9._:+-]+")


def require_instance(instance: str) -> str:
    """`instance` when it reads as `brain_name@machine` (`valid_instance`), else InvalidData (exit 65)."""
    if not valid_instance(instance):
        from brain_tui.core.errors import InvalidData

        raise InvalidData(f"invalid instance {instance[:80]!r}: write it brain_name@machine (like prod@desktop), "
                          "the machine one word of letters, digits and . _ : + -")
    return instance


def valid_instance(instance: str) -> bool:
    """True when `instance` reads as `brain_name@machine` (SPEC 4): one `@` between two non-empty parts.

    The brain name is a folder's or brain-compose.yml's (`My Brain` is one), so inner spaces are kept; no
    part starts or ends with a space, and none holds a slash, a control or an invisible (format) character.
    The machine is one word a signal's sender can hold (`MACHINE_RE`): an instance is who a human's signals
    are from (SPEC 7).
    """
    import unicodedata

    name, at, machine = instance.partition("@")
    if not at or not name or not MACHINE_RE.match(machine) or instance != instance.strip():
        return False
    return not any(c in "/\\" or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in instance)


def machine_part(hostname: str) -> str:
    """A host name as the machine part of an instance (`MACHINE_RE`): each run of characters it cannot hold becomes
    one `-` (`Ada's MacBook Pro` → `Ada-s-MacBook-Pro`), none at either end; `localhost` when nothing is left."""
    return _NOT_MACHINE_RE.sub("-", hostname).strip("-")[:200].strip("-") or "localhost"


#: What no git branch name may hold (`git check-ref-format --branch`): a control character or space, one of
#: ``~ ^ : ? * [ \``, ``..``, ``@{``, ``//``, a component that starts with ``.`` or ends with ``.lock``, a name that
#: starts with ``-``, ``/`` or ``.``, or ends with ``/`` or ``.``.
_BAD_BRANCH_RE = LazyPattern(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock(?:/|$)|^[-/.]|[/.]$")


def valid_branch(name: str) -> bool:
    """True when `name` can name a git branch (`git check-ref-format --branch`): a claim's `theme_branch`."""
    return name not in ("", "@", "HEAD") and not _BAD_BRANCH_RE.search(name)


def party_session(party: str) -> str | None:
    """The session a signal party names (``sess-…`` or ``sess-…@instance``), else None (a human, ``pilote``, ``*``)."""
    return party.partition("@")[0] if party.startswith("sess-") else None


#: A signal party the record leaves empty, as it is shown (a legacy index row's `—` destination is read as none).
NO_PARTY = "—"


def party_text(party: str) -> str:
    """A signal's sender or destination as every front-end shows it: the party, or `NO_PARTY` when the record
    names none (a blank cell would read as a row cut short)."""
    return party if party.strip() else NO_PARTY


def id_pattern(sess_id: str) -> re.Pattern[str]:
    """`sess_id` as a whole ID in text: never a prefix of a longer ID (`…-pilote` in `…-pilote-be5`)."""
    return re.compile(rf"(?<![{_ID_CHARS}]){re.escape(sess_id)}(?![A-Za-z0-9_-]|\.[A-Za-z0-9_-])")


def names_id(text: str, sess_id: str) -> bool:
    """True when `text` names `sess_id` exactly (not as part of a longer ID)."""
    return id_pattern(sess_id).search(text) is not None


def rename_text(text: str, old: str, new: str) -> str:
    """Replace every exact mention of the ID `old` by `new` (claim fields, parents, messages)."""
    return id_pattern(old).sub(new, text)


def seed_ids(seed: int | None) -> None:
    """Make generated slugs reproducible (demo brains, snapshot tests); None restores the system RNG."""
    import random
    import secrets

    global _rng
    _rng = secrets.SystemRandom() if seed is None else random.Random(seed)


def random_slug(length: int = 4) -> str:
    """A random slug of lowercase letters and digits (session and signal IDs)."""
    if _rng is None:
        seed_ids(None)
    assert _rng is not None
    rng = _rng
    return "".join(rng.choice(_ALPHABET) for _ in range(length))


def new_session_id(snapshot: BrainSnapshot, slug: str | None) -> str:
    """A fresh `sess-YYYYMMDD-HHMM-<slug>` in the brain's timezone, never an ID or file name in use."""
    local = snapshot.now.astimezone(snapshot.tz)
    prefix = f"sess-{local:%Y%m%d-%H%M}-"
    # IDs in use, and file names in use (a corrupt claim file or `init.yml` must never be overwritten),
    # compared by path key: `claims/sess-…-AB.yml` and `claims/sess-…-ab.yml` are one file on macOS.
    taken = {path_key(c.sess_id) for c in snapshot.claims}
    taken |= {path_key(PurePosixPath(c.path).stem) for c in snapshot.claims}
    taken |= {path_key(PurePosixPath(c.path).stem) for c in snapshot.corrupt}
    candidate = prefix + (slug or random_slug())
    while path_key(candidate) in taken:
        candidate = prefix + random_slug()
    return candidate


def new_signal_id(snapshot: BrainSnapshot, also_taken: Collection[str] = ()) -> str:
    """A fresh `sig-YYYYMMDD-HHMMSS-xxxx` in the brain's timezone, unused in the snapshot and `also_taken`."""
    stamp = snapshot.now.astimezone(snapshot.tz).strftime("%Y%m%d-%H%M%S")
    existing = {s.sig_id for s in snapshot.signals} | set(also_taken)
    while True:
        sig_id = f"sig-{stamp}-{random_slug()}"
        if sig_id not in existing:
            return sig_id

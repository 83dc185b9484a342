"""The closed history a page at a time: `claims/` listed by name, only one page's files decoded.

Session IDs begin with their opening time (`sess-YYYYMMDD-HHMM-`, SPEC 4), so the names of `claims/` sort in time
order without opening a file. The claims the caller already holds (unfinished ones, corrupt rows) are left out by
path; the rest are the finished claims, newest opening first. Only the page's files are read, through the store's
parse cache. Names that do not begin with `sess-` (legacy files such as `init.yml`, or records that are no claims at
all, `gate-ack-*.yml`) are few: they are read when listed, to know whether they are finished claims, and sort as the
oldest.

A filter text (`needle`) matches the file name (the session ID: its date, time and slug)
case-insensitively, before any file is read.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Collection
from datetime import UTC, datetime

from brain_tui.core.ids import valid_session_id
from brain_tui.core.record import field, record, replace
from brain_tui.core.records.formats import YAML_SUFFIXES
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.records.store import BrainStore
from brain_tui.core.records.yamlio import TEMP_MARK

#: An ID's opening time in its name: `sess-YYYYMMDD` then, optionally, `-HHMM`.
_OPENED = re.compile(r"^sess-(\d{8})(?:-(\d{4}))?(?=[-.]|$)")


def name_order(name: str) -> tuple[str, str, str]:
    """The sort key of a file name: its opening date and time (when it names them), then the name."""
    found = _OPENED.match(name)
    if found is None:
        return ("", "", name)
    return (found.group(1), found.group(2) or "", name)


@record
class HistoryPage:
    """One page of finished claims, newest opening first."""

    claims: tuple[Claim, ...]
    #: How many finished claims match in all (the names' count: a file of the page that does not read
    #: as a finished claim is left out of the page).
    total: int
    page: int = 0
    #: The page's names, for a caller that wants to find a claim's page (`page_of`).
    names: tuple[str, ...] = field(default=(), repr=False)

    def as_dict(self) -> dict[str, object]:
        """The `--json` shape."""
        return {"page": self.page, "total": self.total, "claims": [c.sess_id for c in self.claims]}


class HistoryIndex:
    """The finished claims' file names, listed once per change of the `claims/` folder (read through `store`)."""

    def __init__(self, store: BrainStore) -> None:
        self.store = store
        self._listed: tuple[tuple[int, int], list[str]] | None = None
        #: The legacy names read when listed, by (name, file key): whether each is a finished claim.
        self._legacy: dict[tuple[str, int, int], bool] = {}

    def names(self) -> list[str]:
        """Every claim file name of `claims/`, newest opening first (one `listdir` per folder change)."""
        folder = self.store.root / "claims"
        try:
            st = os.stat(folder)
        except OSError:
            return []
        key = (st.st_mtime_ns, st.st_ino)
        if self._listed is None or self._listed[0] != key:
            try:
                found = [n for n in os.listdir(folder) if n.endswith(YAML_SUFFIXES) and not n.startswith(TEMP_MARK)]
            except OSError:
                found = []
            found.sort(key=name_order, reverse=True)
            self._listed = (key, found)
        return self._listed[1]

    def _is_finished(self, name: str) -> bool:
        """A name that is no session ID: read it (once per change) to know whether it is a finished claim."""
        claim = self.load(name)
        return claim is not None and claim.is_terminal

    def load(self, name: str) -> Claim | None:
        """The claim in `claims/<name>` through the parse cache, or None (gone, corrupt, no claim)."""
        rel = f"claims/{name}"
        try:
            st = os.lstat(self.store.root / rel)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):  # a link is never followed (the snapshot reports it)
            return None
        item = self.store._load(rel, st, "claim")  # the store's own reading: cached parse, cached claim
        return item if isinstance(item, Claim) else None

    def finished(self, held: Collection[str], needle: str = "") -> list[str]:
        """The names of the finished claims: every name but `held` (paths), filtered by `needle`."""
        lowered = needle.lower()
        out: list[str] = []
        for name in self.names():
            if f"claims/{name}" in held or (lowered and lowered not in name.lower()):
                continue
            if not name.startswith("sess-"):
                try:
                    st = os.stat(self.store.root / "claims" / name)
                except OSError:
                    continue
                key = (name, st.st_mtime_ns, st.st_ino)
                if key not in self._legacy:
                    self._legacy[key] = self._is_finished(name)
                if not self._legacy[key]:
                    continue
            out.append(name)
        return out

    def page(self, held: Collection[str], page: int, size: int, needle: str = "") -> HistoryPage:
        """One page of finished claims (`size` files read at most, besides legacy names)."""
        names = self.finished(held, needle)
        pages = max(1, -(-len(names) // max(1, size)))
        page = min(max(0, page), pages - 1)
        chosen = names[page * size:(page + 1) * size]
        claims = [c for c in (self.load(n) for n in chosen) if c is not None and c.is_terminal]
        return HistoryPage(tuple(claims), len(names), page, tuple(chosen))

    def page_of(self, held: Collection[str], sess_id: str, size: int, needle: str = "") -> int | None:
        """The page that lists `claims/<sess_id>.yml` (or `.yaml`), or None."""
        names = self.finished(held, needle)
        for suffix in YAML_SUFFIXES:
            if f"{sess_id}{suffix}" in names:
                return names.index(f"{sess_id}{suffix}") // max(1, size)
        return None

    def with_named(self, snapshot: BrainSnapshot) -> BrainSnapshot:
        """`snapshot` plus the finished claims it names and lacks: ancestors, pending signals' parties.

        A recent read (`closed_since`) may leave out a parent that closed long ago while its
        satellites still work (the satellite tree needs it as their root), or the sender of a signal
        still pending (the attention queue names it). Each is read by its file name.
        """
        known = {c.sess_id for c in snapshot.claims}
        added: list[Claim] = []
        wanted = [c.parent for c in snapshot.claims if c.parent and c.parent not in known]
        for sig in snapshot.signals:
            if sig.state == SignalState.PENDING:
                for party in (sig.sender, sig.scope if sig.type == "CIRCUIT_BREAK" else ""):
                    if party and party.startswith("sess-"):
                        wanted.append(party.partition("@")[0])
        while wanted:
            sess_id = wanted.pop()
            if sess_id in known or not valid_session_id(sess_id):
                continue
            known.add(sess_id)
            claim = next((c for c in (self.load(f"{sess_id}{s}") for s in YAML_SUFFIXES) if c is not None), None)
            if claim is not None and claim.sess_id == sess_id:
                added.append(claim)
                if claim.parent and claim.parent not in known:
                    wanted.append(claim.parent)
        if not added:
            return snapshot
        epoch = datetime(1970, 1, 1, tzinfo=UTC)
        claims = sorted((*snapshot.claims, *added), key=lambda c: (c.opened_at or epoch, c.sess_id))
        return replace(snapshot, claims=tuple(claims))

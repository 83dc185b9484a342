"""An agent's write changes only its own claims, at the last door of every write too (SPEC 21.4).

`Brain`'s verbs refuse an agent acting for another session's claim before they stage anything
(`facade.mutate_for`, `claims.open_claim`'s `require_delegation`); below them an agent's Python could
build the same write with the rule functions over a `ChangeSet` and hand it to `write_path.apply`. That
write refuses (NotYours, exit 77, naming the holder) and leaves the brain as it was. The writes the
product makes on another's claim from an agent's process still go through: the watchdog's stale mark of
an expired claim, a claim lost at sync (`reconcile.mark_lost`), a skewed mark revived (`skew.revive`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core import write_path
from brain_tui.core.errors import NotYours
from brain_tui.core.paths.scope import parse_scope_args
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.rules import claims, watchdog
from brain_tui.core.rules.claims import CloseRequest, OpenRequest
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import at, open_in
from tests.rules.test_human_lifts import as_agent, refused_as_agent, staged

LATER = "2026-11-29T20:00:00Z"  # past every claim's 8 h


def request(brain: Path, *scopes: str, **fields: Any) -> OpenRequest:
    """`bsi claim open --scope …` as a request, for `claims.open_claim` over a ChangeSet."""
    b = at(brain)
    return OpenRequest(scope=parse_scope_args(list(scopes), b.root), ttl=b.config.ttl_default,
                       instance=b.instance, **fields)


def not_yours_as_agent(brain: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[ChangeSet], object],
                       holder: str) -> None:
    """The write `build` stages (as a human's process), applied from an agent's process: NotYours (77) naming
    `holder`, nothing written; the process is a human's again afterwards."""
    assert holder in refused_as_agent(brain, monkeypatch, build, NotYours).message


@pytest.fixture
def theirs(brain: Path) -> str:
    return open_in(brain, "lib/", story="theirs", slug="theirs")


CHANGES: dict[str, Callable[[ChangeSet, str], object]] = {
    "close": lambda cs, s: claims.close_claim(cs, s, CloseRequest(status="ok")),
    "renew": lambda cs, s: claims.renew_claim(cs, s, timedelta(hours=3)),
    "edit": lambda cs, s: cs.update_claim(s, {"story": "mine now"}),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_an_agent_changes_no_other_sessions_claim_below_the_facade(brain: Path, theirs: str, change: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    not_yours_as_agent(brain, monkeypatch, lambda cs: CHANGES[change](cs, theirs), theirs)
    assert load_claim(brain, theirs)["status"] == "open"


def test_an_agent_deletes_no_other_sessions_finished_claim_below_the_facade(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    at(brain).close_claim(theirs, CloseRequest(status="ok"))
    not_yours_as_agent(brain, monkeypatch, lambda cs: cs.delete(f"claims/{theirs}.yml"), theirs)


def test_an_agent_opens_no_child_under_another_sessions_claim_below_the_facade(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    child = request(brain, "lib/sub/", story="child", slug="child", parent=theirs, type="satellite")
    not_yours_as_agent(brain, monkeypatch, lambda cs: claims.open_claim(cs, child), theirs)
    assert sorted(p.stem for p in (brain / "claims").glob("*.yml")) == [theirs]


def test_an_agent_moves_no_claim_of_its_own_under_another_sessions_claim(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    as_agent(monkeypatch)
    mine = open_in(brain, "docs/", story="mine")
    monkeypatch.setenv("BSI_SESSION", mine)
    b, cs = staged(brain, lambda cs: cs.update_claim(mine, {"parent_satellite": theirs, "type": "satellite"}))
    before = tree_bytes(brain)
    with pytest.raises(NotYours, match=theirs):
        write_path.apply(b, cs)
    assert tree_bytes(brain) == before


def test_an_agents_own_claim_and_child_still_write_below_the_facade(brain: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    as_agent(monkeypatch)
    mine = open_in(brain, "docs/", story="mine")
    monkeypatch.setenv("BSI_SESSION", mine)  # as a launcher gives it
    child = request(brain, "docs/sub/", story="child", slug="child", parent=mine, type="satellite")
    b, cs = staged(brain, lambda cs: claims.open_claim(cs, child))
    write_path.apply(b, cs)
    b, cs = staged(brain, lambda cs: claims.close_claim(cs, mine, CloseRequest(status="ok")))
    write_path.apply(b, cs)
    assert load_claim(brain, mine)["status"] == "closed"
    assert len(list((brain / "claims").glob("*.yml"))) == 2


def test_the_watchdog_still_marks_another_sessions_expired_claim_from_an_agents_process(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    as_agent(monkeypatch)
    mine = open_in(brain, "docs/", story="mine")
    monkeypatch.setenv("BSI_SESSION", mine)
    at(brain, LATER).watchdog()
    assert load_claim(brain, theirs)["status"] == "stale" and load_claim(brain, mine)["status"] == "stale"


def test_the_watchdog_built_below_the_facade_marks_another_sessions_expired_claim(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    b = at(brain, LATER)
    cs = ChangeSet(b.snapshot())
    watchdog.watchdog(cs)
    as_agent(monkeypatch)
    write_path.apply(b, cs)
    assert load_claim(brain, theirs)["status"] == "stale"


def test_a_stale_mark_the_watchdog_would_not_make_is_not_an_agents_on_another_claim(
        brain: Path, theirs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim still within its time is no watchdog's to mark; an expired one's mark changes nothing else."""
    mark = {"status": "stale", "stale_from": "open", "stale_since": "2026-11-29T10:00:00+00:00",
            "stale_reason": "TTL expired without close"}
    not_yours_as_agent(brain, monkeypatch, lambda cs: cs.update_claim(theirs, mark), theirs)
    b = at(brain, LATER)
    cs = ChangeSet(b.snapshot())
    watchdog.watchdog(cs)
    cs.update_claim(theirs, {"story": "mine now"})
    as_agent(monkeypatch)
    with pytest.raises(NotYours, match=theirs):
        write_path.apply(b, cs)
    assert load_claim(brain, theirs)["status"] == "open"


def test_a_claim_stale_at_the_agents_clock_only_is_not_marked_by_it(brain: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A watchdog run at a clock set far ahead (built below the facade, where `require_true_clock` does not
    stand) marks nothing of another's: expiry is judged at most the skew limit past the machine's clock."""
    from datetime import UTC, datetime, timedelta

    real = datetime.now(UTC).replace(microsecond=0)
    fresh = open_in(brain, "src/", story="fresh", slug="fresh", now=real.isoformat())
    b = at(brain, (real + timedelta(days=2)).isoformat())
    cs = ChangeSet(b.snapshot())
    watchdog.watchdog(cs)
    as_agent(monkeypatch)
    with pytest.raises(NotYours, match=fresh):
        write_path.apply(b, cs)
    assert load_claim(brain, fresh)["status"] == "open"

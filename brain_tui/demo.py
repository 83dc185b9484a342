"""A realistic demo brain, built at a given "now" (used by `bsi demo`, `brain-tui --demo`, tests, screenshots).

The same `now` always gives the same files, IDs and commit hashes.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from brain_tui.core.agent_settings import claude as agent_settings
from brain_tui.core.brain import Brain, init_brain, make_folder
from brain_tui.core.clock import parse_duration, require_commit_date
from brain_tui.core.environment.breath import write_demo_breath
from brain_tui.core.errors import InvalidData
from brain_tui.core.ids import seed_ids
from brain_tui.core.paths.layout import brain_above
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.yamlio import atomic_write_text
from brain_tui.core.rules.claims import CloseRequest, OpenRequest
from brain_tui.core.sync import gitops

DEMO_COMPOSE = """\
# brain:
#   type: protocol
#   scope: kernel
#   lifecycle: stable
#   read: full
# brain-compose.yml — demo brain
brain_name: prod
timezone: UTC
kerneluser: false
sync: manual
ttl_default: 2h
circuit_breaker:
  max_consecutive_fails: 3
ports:
  brain-api: 7700
  brain-mcp: 7701
"""

MD_HEADER = """\
---
brain:
  type: {type}
  scope: work
  lifecycle: {lifecycle}
  read: header
  triggers: [sprint]
  export: false
---
"""
CODE_HEADER = """\
# brain:
#   type: work
#   scope: work
#   lifecycle: stable
#   read: header
"""


def _demo_file(rel: str) -> str:
    """A demo file with a brain-language header (one deliberately wrong, so `bsi lint` has a finding)."""
    if rel.endswith(".py"):
        return CODE_HEADER + f'"""{rel} (demo)."""\n'
    kind = "notes" if rel == "wiki/concepts.md" else "work"
    lifecycle = "sprint" if rel.startswith("todo/") else "stable"
    return MD_HEADER.format(type=kind, lifecycle=lifecycle) + f"# {rel}\n\n## Sprint 12\n\nDemo content.\n"


DEMO_README = """\
---
brain:
  type: reference
  scope: work
  lifecycle: permanent
  read: full
---
# Demo brain

A brain built by `bsi demo`: a pilot with a domain satellite and leaves, a gate
waiting for a human, a stale claim, pending signals and some closed history.
"""


class _ShiftClock:
    """A clock the demo moves along its story."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def refuse_demo_target(root: Path) -> None:
    """A demo writes fake claims (a `*` search, a stale one) and many commits: only into an empty folder. Raises
    InvalidData (exit 65) when `root` is a brain, lies inside one, or is a folder that is not empty."""
    found = brain_above(root)
    if found is not None:
        where = "is" if Path(found) == root else f"is inside the brain {found}, which"
        raise InvalidData(f"{root} {where} already a brain: the demo's fake claims and commits would "
                          "mix with real ones; give the demo a new, empty folder")
    if root.exists() and not root.is_dir():
        raise InvalidData(f"{root} exists and is not a folder: give the demo a new, empty folder")
    if root.is_dir() and any(root.iterdir()):
        raise InvalidData(f"{root} is not empty: give the demo a new, empty folder")


#: The work the gated test satellite committed, so its gate shows a diff (`bsi gate show`).
DEMO_TESTS = '''"""Tests for /search: pagination and empty queries."""

from brain_engine.search import search


def test_first_page_has_ten_results():
    assert len(search("brain", page=1)) == 10


def test_empty_query_returns_nothing():
    assert search("") == []
'''


def _demo_work_commit(root: Path, sess_id: str, when: datetime) -> None:
    """The test satellite's own commit: its tests, the session ID in the message."""
    target = root / "brain-engine" / "tests" / "test_search.py"
    target.write_text(target.read_text() + "\n" + DEMO_TESTS)
    (root / "brain-engine" / "tests" / "test_pagination.py").write_text(
        CODE_HEADER + '"""Pagination edge cases."""\n\n\ndef test_last_page_is_short():\n    assert True\n')
    gitops.commit_paths(root, ["brain-engine/tests/test_search.py", "brain-engine/tests/test_pagination.py"],
                        f"tests: /search pagination and empty queries ({sess_id})", when)


def build_demo(path: str | os.PathLike[str], now: datetime) -> Path:
    """Write the demo brain at `path` as it would be at `now`; gives the brain's root."""
    if not os.fspath(path).strip():  # an unset variable in a script: never the current folder by accident
        raise InvalidData("bsi demo: the folder named is blank; give a new, empty folder")
    root = Path(path).expanduser().resolve()
    refuse_demo_target(root)
    for moment in (now - timedelta(hours=26), now):  # its commits' dates: refused before anything is made
        require_commit_date(moment)
    make_folder(root)
    if not gitops.is_repository(root):
        gitops.run_git(root, "init", "--quiet", "--initial-branch", "main")
    gitops.run_git(root, "config", "user.name", "Demo Pilot")
    gitops.run_git(root, "config", "user.email", "pilot@example.org")
    atomic_write_text(root / "brain-compose.yml", DEMO_COMPOSE)
    atomic_write_text(root / "README.md", DEMO_README)
    # The agents' settings: Claude Code's hooks and deny rules, and the MCP server (SPEC 20.2, 20.3).
    agent_settings.install(root, local=False)
    agent_settings.mcp_install(root)
    for folder, files in {
        "brain-engine": ["server.py", "search.py"],
        "brain-engine/api": ["routes.py"],
        "brain-engine/tests": ["test_search.py"],
        "todo": ["brain.md"],
        "wiki": ["concepts.md"],
        "deploy": ["vps.md"],
    }.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in files:
            target = root / folder / name
            if not target.exists():
                target.write_text(_demo_file(f"{folder}/{name}"))
    seed_ids(20261129)
    try:
        clock = _ShiftClock(now - timedelta(hours=26))
        init_brain(root, commit=False)
        gitops.commit_paths(root, ["brain-compose.yml", "README.md", ".gitignore", "BRAIN-INDEX.md",
                                   ".claude/settings.json", ".mcp.json",
                                   "claims/.gitkeep", "signals/.gitkeep", "locks/.gitkeep", "breath/.gitkeep",
                                   *[str(p.relative_to(root)) for p in root.rglob("*")
                                     if p.is_file() and p.parts[len(root.parts)] in
                                     ("brain-engine", "todo", "wiki", "deploy")]],
                            "bsi: init brain", clock())
        brain = Brain(root, clock=clock)

        def at(delta: timedelta) -> None:
            clock.at = now + delta

        def open_(slug: str, scope: str, instance: str, story: str, ttl: str = "2h", **kw: object) -> str:
            req = OpenRequest(scope=parse_scope(scope, root), ttl=parse_duration(ttl), instance=instance,
                              story=story, slug=slug, **kw)  # type: ignore[arg-type]
            return brain.open_claim(req)

        # Yesterday's history.
        at(timedelta(hours=-25))
        wiki = open_("wiki-glossary", "wiki/", "prod@laptop", "Glossary pass on the wiki")
        at(timedelta(hours=-24, minutes=-20))
        brain.close_claim(wiki, CloseRequest(status="ok", files=["wiki/concepts.md"]))
        at(timedelta(hours=-23))
        hotfix = open_("todo-triage", "todo/brain.md", "prod@vps", "Triage of the todo list")
        at(timedelta(hours=-22, minutes=-30))
        brain.close_claim(hotfix, CloseRequest(status="partial", notes="two items left for Monday"))

        # A claim left behind on the laptop: it goes stale.
        at(timedelta(hours=-5))
        open_("notes-wrap", "todo/brain.md#Sprint 12", "prod@laptop", "Wrap-up notes for sprint 12")

        # The pilot and its tree.
        at(timedelta(hours=-2))
        pilot = open_("pilote-be7", "brain-engine/", "prod@desktop", "Pilot BE-7 — search API, tests, deploy",
                      ttl="4h", type="pilote")
        at(timedelta(hours=-1, minutes=-50))
        domain = open_("api-domain", "brain-engine/api/", "prod@desktop", "Domain: search API",
                       ttl="4h", parent=pilot, satellite_type="domain", level="domain")
        at(timedelta(hours=-1, minutes=-40))
        search = open_("api-search", "brain-engine/api/routes.py", "prod@desktop",
                       "Implement /search with pagination", parent=domain, satellite_type="code",
                       on_done="trigger → type:test scope:brain-engine/tests/", on_fail="signal → BLOCKED_ON pilote")
        at(timedelta(hours=-1, minutes=-30))
        tests = open_("api-tests", "brain-engine/tests/", "prod@vps", "Tests for /search",
                      parent=domain, satellite_type="test", on_done='gate:human → "deploy to staging?"')
        at(timedelta(hours=-1, minutes=-20))
        docs = open_("engine-docs", "brain-engine/search.py", "prod@laptop", "Docstrings for the search module",
                     parent=pilot, satellite_type="brain-write")
        at(timedelta(minutes=-50))
        brain.close_claim(docs, CloseRequest(status="ok", files=["brain-engine/search.py"]))
        at(timedelta(minutes=-35))
        brain.signals.send(search, domain, "BLOCKED_ON", "waiting for the schema migration of the index table",
                          "brain-engine/api/routes.py")
        at(timedelta(minutes=-25))
        _demo_work_commit(root, tests, clock())
        at(timedelta(minutes=-20))
        brain.close_claim(tests, CloseRequest(tests_total=24, tests_passed=24, tests_failed=0,
                                              files=["brain-engine/tests/test_search.py",
                                                     "brain-engine/tests/test_pagination.py"]))
        at(timedelta(minutes=-10))
        open_("deploy-notes", "deploy/vps.md", "prod@vps", "Deployment checklist for the VPS",
              satellite_type="deploy", parent=pilot)
        at(timedelta(minutes=-5))
        brain.signals.send("prod@laptop", "prod@desktop", "INFO", "laptop goes offline until tonight", "")
        open_("search-scan", "*", "prod@laptop", "Read-only scan for TODO markers", satellite_type="search",
              ttl="90m")
        at(timedelta(0))
        brain.mutate(write_demo_breath)
        brain.watchdog()
    finally:
        seed_ids(None)
    return root

"""Synthetic brains for the benchmarks: 100 / 1,000 / 10,000 / 50,000 claims in the product's format.

The files are written directly as YAML text (no `bsi`, no ruamel), so a brain
of 50,000 claims takes seconds. The mix follows a busy brain after months of
use: mostly closed history (a few failed and released), deep pilot → domain →
(sub-domain →) leaf trees, solo claims, section scopes, multi-entry scopes,
search satellites, a few stale claims, an active tail near "now" (open,
waiting_human, paused), signals (mostly archived/delivered, a few pending) and
a few file locks.

Everything is a pure function of ``(n_claims, seed, now)``: the same arguments
give byte-identical files.

    python benchmarks/generate.py PATH --claims 10000 [--seed 7] [--now ISO] [--index] [--git]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

#: The fixed "now" of every benchmark (pass it as ``--now`` to `bsi`).
DEFAULT_NOW = "2026-11-29T10:00:00+00:00"
DEFAULT_SEED = 7
#: About how many claims a busy brain opens per day (sets the span of the history).
CLAIMS_PER_DAY = 30

INSTANCES = ("prod@desktop", "prod@laptop", "prod@vps", "lab@desktop")
DOMAINS = ("api", "core", "docs", "ui", "infra", "data", "search", "auth", "cli", "tests")
SUBDOMAINS = ("v1", "v2", "internal", "legacy")
MODULES = ("routes.py", "models.py", "views.py", "schema.py", "README.md", "handlers.py", "utils.py", "config.yml")
LEAF_TYPES = ("code", "code", "code", "test", "test", "brain-write", "deploy", "search")
TOPICS = ("glossary", "concepts", "onboarding", "roadmap", "decisions", "faq", "postmortems", "style")
SIGNAL_TYPES = ("READY_FOR_REVIEW", "REVIEWED", "CHECKPOINT", "INFO", "HANDOFF", "BLOCKED_ON")
STORIES = (
    "Refactor the {d} layer of {p}",
    "Tests for {p}/{d}",
    "Docs pass on {p} — {d}",
    "Fix flaky {d} checks in {p}",
    "Migrate {p}/{d} to the new schema",
    "Review of the {d} endpoints ({p})",
)

_PLAIN_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_ ./@-]*[A-Za-z0-9_./@-]$|^[A-Za-z]$")
_RESERVED = frozenset({"yes", "no", "on", "off", "true", "false", "null", "y", "n"})


# --------------------------------------------------------------------------- YAML text


def _scalar(value: Any) -> str:
    """One YAML scalar as ruamel would write it for the product (timestamps single-quoted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, datetime):
        return "'" + value.isoformat() + "'"
    text = str(value)
    if _PLAIN_RE.match(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def _flow(mapping: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {_scalar(value)}" for key, value in mapping.items()) + "}"


def to_yaml(doc: dict[str, Any], indent: str = "") -> str:
    """Block YAML for the small shapes claims and signals use (maps, lists of scalars or flow maps)."""
    lines: list[str] = []
    for key, value in doc.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.append(to_yaml(value, indent + "  ").rstrip("\n"))
        elif isinstance(value, list):
            lines.append(f"{indent}{key}:")
            for item in value:
                lines.append(f"{indent}  - {_flow(item) if isinstance(item, dict) else _scalar(item)}")
        else:
            lines.append(f"{indent}{key}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the plan


@dataclass
class _Claim:
    sess_id: str
    doc: dict[str, Any]
    opened: datetime
    leaf_files: list[str] = field(default_factory=list)
    sat_type: str | None = None


@dataclass
class _Gen:
    rng: random.Random
    now: datetime
    ids: set[str] = field(default_factory=set)
    claims: list[_Claim] = field(default_factory=list)
    signals: list[dict[str, Any]] = field(default_factory=list)
    locks: list[dict[str, Any]] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)
    live_sections: set[str] = field(default_factory=set)
    serial: int = 0

    def sess_id(self, at: datetime, slug: str) -> str:
        self.serial += 1
        base = f"sess-{at:%Y%m%d-%H%M}-{slug}-{self.serial:x}"
        self.ids.add(base)
        return base

    def sig_id(self, at: datetime) -> str:
        self.serial += 1
        return f"sig-{at:%Y%m%d-%H%M%S}-{self.serial:x}{self.rng.choice('abcdefghkmnpqrstuvwxyz')}"


def _ttl(hours: float) -> str:
    whole = int(hours)
    minutes = int(round((hours - whole) * 60))
    return f"{whole}h{minutes}m" if minutes else f"{whole}h"


def _base(sess_id: str, ctype: str, scope: str | list[str], story: str, opened: datetime,
          ttl_h: float, instance: str) -> dict[str, Any]:
    return {
        "sess_id": sess_id,
        "type": ctype,
        "instance": instance,
        "scope": scope,
        "story_angle": story,
        "status": "open",
        "opened_at": opened,
        "ttl": _ttl(ttl_h),
        "expires_at": opened + timedelta(hours=ttl_h),
    }


def _sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(28):07x}"


def _finish(gen: _Gen, claim: _Claim, status: str, *, sat_type: str | None = None) -> None:
    """Turn an opened claim into history: closed (most), failed or released, with a result."""
    rng = gen.rng
    doc = claim.doc
    span = timedelta(minutes=rng.randint(8, 170))
    ended = min(claim.opened + span, doc["expires_at"])
    if status == "released":
        doc["status"] = "released"
        doc["stale_since"] = doc["expires_at"]
        doc["stale_from"] = "open"
        doc["stale_reason"] = "TTL expired without close"
        doc["closed_at"] = doc["expires_at"] + timedelta(minutes=rng.randint(20, 600))
        doc["release_reason"] = "session crashed, work reviewed by hand"
        doc["gate_history"] = [
            {"ts": doc["stale_since"], "event": "STALE", "by": "watchdog", "message": "TTL expired without close"},
            {"ts": doc["closed_at"], "event": "RELEASED", "by": "pilot@example.org",
             "message": "session crashed, work reviewed by hand"},
        ]
        return
    doc["status"] = status
    doc["closed_at"] = ended
    result: dict[str, Any] = {"status": "ok" if status == "closed" else "failed"}
    if status == "closed" and rng.random() < 0.15:
        result["status"] = "partial"
        result["notes"] = "two items left for the next session"
    if claim.leaf_files:
        result["files_modified"] = list(claim.leaf_files)
        result["commit"] = _sha(rng)
    if sat_type in ("code", "test"):
        total = rng.randint(4, 80)
        failed = 0 if status == "closed" else rng.randint(1, 5)
        result["tests"] = {"total": total, "passed": total - failed, "failed": failed}
    doc["result"] = result
    if status == "failed":
        doc["abort_reason"] = "tests failed three times in a row"
    elif rng.random() < 0.08:
        asked = claim.opened + span / 2
        doc["gate_history"] = [
            {"ts": asked, "event": "HUMAN_GATE", "by": claim.sess_id, "message": "deploy to staging?"},
            {"ts": ended, "event": "APPROVED", "by": "pilot@example.org", "message": "go"},
        ]


def _history_status(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.90:
        return "closed"
    if roll < 0.96:
        return "failed"
    return "released"


def _tree(gen: _Gen, project: str, at: datetime, budget: int, *, active: bool) -> list[_Claim]:
    """One pilot → domain (→ sub-domain) → leaf tree; at most `budget` claims."""
    rng = gen.rng
    made: list[_Claim] = []
    instance = rng.choice(INSTANCES)
    pilot_id = gen.sess_id(at, f"pilote-{project}")
    pilot = _Claim(pilot_id, _base(pilot_id, "pilote", f"projects/{project}/", f"Pilot {project.upper()} sprint",
                                   at, rng.choice((4, 6, 8)), instance), at)
    made.append(pilot)
    gen.folders.add(f"projects/{project}")
    domains = rng.sample(DOMAINS, k=min(len(DOMAINS), rng.randint(2, 4)))
    t = at
    for domain in domains:
        if len(made) >= budget:
            break
        t += timedelta(minutes=rng.randint(2, 9))
        dom_scope = f"projects/{project}/{domain}"
        gen.folders.add(dom_scope)
        dom_id = gen.sess_id(t, f"{domain}-domain")
        dom_doc = _base(dom_id, "satellite", dom_scope + "/", f"Domain: {domain} of {project}", t,
                        rng.choice((3, 4)), instance)
        dom_doc.update({"satellite_type": "domain", "satellite_level": "domain", "parent_satellite": pilot_id})
        dom = _Claim(dom_id, dom_doc, t)
        made.append(dom)
        parents = [(dom, dom_scope)]
        if rng.random() < 0.25 and len(made) < budget:  # a deeper tree: a sub-domain under the domain
            sub = rng.choice(SUBDOMAINS)
            sub_scope = f"{dom_scope}/{sub}"
            gen.folders.add(sub_scope)
            t += timedelta(minutes=rng.randint(1, 5))
            sub_id = gen.sess_id(t, f"{domain}-{sub}")
            sub_doc = _base(sub_id, "satellite", sub_scope + "/", f"Sub-domain {sub} of {domain}", t, 3,
                            instance)
            sub_doc.update({"satellite_type": "domain", "satellite_level": "domain", "parent_satellite": dom_id})
            sub_claim = _Claim(sub_id, sub_doc, t)
            made.append(sub_claim)
            parents.append((sub_claim, sub_scope))
        modules = rng.sample(MODULES, k=len(MODULES))
        for number in range(rng.randint(3, 9)):
            if len(made) >= budget or not modules:
                break
            parent, base_scope = rng.choice(parents)
            t += timedelta(minutes=rng.randint(1, 12))
            sat_type = rng.choice(LEAF_TYPES)
            module = modules.pop()
            file_scope = f"{base_scope}/{module}"
            roll = rng.random()
            scope: str | list[str]
            if sat_type == "search":
                scope = "*" if roll < 0.3 else f"projects/{project}/"
            elif roll < 0.15:  # a section of the project's todo
                sprint = rng.randint(1, 40)
                while active and f"{project}#{sprint}" in gen.live_sections:  # live claims never overlap
                    sprint += 1
                if active:
                    gen.live_sections.add(f"{project}#{sprint}")
                scope = f"todo/{project}.md#Sprint {sprint}"
                gen.folders.add("todo")
            elif roll < 0.30 and modules:  # several entries
                other = modules.pop()
                scope = [file_scope, f"{base_scope}/{other}"]
            else:
                scope = file_scope
            leaf_id = gen.sess_id(t, f"{domain}-{sat_type}-{number}")
            ttl_h = rng.choice((1.5, 2, 2, 3))
            story = STORIES[number % len(STORIES)].format(d=domain, p=project)
            leaf_doc = _base(leaf_id, "satellite", scope, story, t, ttl_h, rng.choice(INSTANCES))
            leaf_doc.update({"satellite_type": sat_type, "satellite_level": "leaf", "parent_satellite": parent.sess_id})
            made.append(_Claim(leaf_id, leaf_doc, t, _files_of(scope), sat_type))
    if not active:
        for claim in made:
            _finish(gen, claim, _history_status(rng), sat_type=claim.sat_type)
    return made


def _files_of(scope: str | list[str]) -> list[str]:
    """The plain files of a scope (what a close lists as modified)."""
    items = [scope] if isinstance(scope, str) else scope
    return [item for item in items if "#" not in item and not item.endswith("/") and item != "*"]


def _solo(gen: _Gen, at: datetime, *, active: bool) -> _Claim:
    rng = gen.rng
    roll = rng.random()
    scope: str | list[str]
    if roll < 0.35:
        scope = f"wiki/{rng.choice(TOPICS)}.md"
    elif roll < 0.60:
        scope = f"todo/brain.md#Sprint {rng.randint(1, 60)}"
    elif roll < 0.75:
        scope = [f"wiki/{rng.choice(TOPICS)}.md", f"todo/brain.md#Sprint {rng.randint(1, 60)}"]
    elif roll < 0.90:
        scope = "agents/"
    else:
        scope = f"deploy/{rng.choice(('vps', 'staging', 'backup'))}.md"
    gen.folders.update({"wiki", "todo", "agents", "deploy"})
    sess_id = gen.sess_id(at, "solo")
    doc = _base(sess_id, "solo", scope, "Solo session on " + (scope if isinstance(scope, str) else scope[0]),
                at, rng.choice((1, 2, 2, 4)), rng.choice(INSTANCES))
    claim = _Claim(sess_id, doc, at, _files_of(scope))
    if not active:
        _finish(gen, claim, _history_status(rng))
    return claim


def _activate(gen: _Gen, trees: list[list[_Claim]]) -> None:
    """Give the active tail its states: most open, a gate waiting for a human, a paused branch."""
    rng = gen.rng
    for tree in trees:
        for claim in tree:
            doc = claim.doc
            if doc.get("satellite_level") != "leaf":
                continue
            roll = rng.random()
            if roll < 0.12:
                doc["status"] = "waiting_human"
                doc["gate_origin"] = "close"
                doc["gate_message"] = "deploy to staging?"
                doc["result"] = {"status": "ok", "files_modified": list(claim.leaf_files)}
                doc["gate_history"] = [{"ts": claim.opened + timedelta(minutes=30), "event": "HUMAN_GATE",
                                        "by": claim.sess_id, "message": "deploy to staging?"}]
            elif roll < 0.18:
                doc["status"] = "paused"
                doc["paused_by"] = doc["parent_satellite"]
                doc["paused_from"] = "open"
            elif roll < 0.35 and claim.leaf_files:
                file = claim.leaf_files[0]
                gen.locks.append({
                    "file": file, "holder": claim.sess_id, "generation": 1,
                    "claimed_at": claim.opened + timedelta(minutes=5),
                    "expires_at": claim.opened + timedelta(minutes=65), "ttl_min": 60,
                })


def _keep_alive(gen: _Gen, claims: list[_Claim]) -> None:
    """Active claims were opened before now and expire after it (else a watchdog would have marked them)."""
    for claim in claims:
        doc = claim.doc
        if claim.opened >= gen.now:
            claim.opened = gen.now - timedelta(minutes=gen.rng.randint(2, 20))
            doc["opened_at"] = claim.opened
        if doc["expires_at"] <= gen.now:
            hours = min(8, math.ceil((gen.now - claim.opened).total_seconds() / 3600) + 1)
            doc["ttl"] = _ttl(hours)
            doc["expires_at"] = claim.opened + timedelta(hours=hours)


def _stale(gen: _Gen, at: datetime) -> _Claim:
    claim = _solo(gen, at, active=True)
    doc = claim.doc
    doc["status"] = "stale"
    doc["stale_since"] = doc["expires_at"] + timedelta(minutes=gen.rng.randint(1, 30))
    doc["stale_from"] = "open"
    doc["stale_reason"] = "TTL expired without close"
    doc["gate_history"] = [{"ts": doc["stale_since"], "event": "STALE", "by": "watchdog",
                            "message": "TTL expired without close"}]
    return claim


def _signals_for(gen: _Gen, claims: list[_Claim], count: int, recent: list[_Claim]) -> None:
    rng = gen.rng
    now = gen.now
    with_parent = [c for c in claims if c.doc.get("parent_satellite")]
    for _ in range(count):
        claim = rng.choice(with_parent or claims)
        created = claim.opened + timedelta(minutes=rng.randint(5, 60))
        if created > now:
            created = now - timedelta(minutes=1)
        age = now - created
        state = "archived" if age > timedelta(days=2) else "delivered"
        gen.signals.append(_signal(gen, claim, created, state))
    for claim in recent:  # the active tail has a few pending signals
        if claim.doc.get("parent_satellite") and rng.random() < 0.3:
            created = min(claim.opened + timedelta(minutes=20), now - timedelta(minutes=1))
            gen.signals.append(_signal(gen, claim, created, "pending"))


def _signal(gen: _Gen, claim: _Claim, created: datetime, state: str) -> dict[str, Any]:
    rng = gen.rng
    sig_type = rng.choice(SIGNAL_TYPES)
    scope = claim.doc["scope"]
    doc: dict[str, Any] = {
        "sig_id": gen.sig_id(created),
        "from": claim.sess_id,
        "to": claim.doc.get("parent_satellite") or rng.choice(INSTANCES),
        "type": sig_type,
        "scope": scope if isinstance(scope, str) else scope[0],
        "payload": f"{sig_type.lower().replace('_', ' ')} — {claim.doc['story_angle']}",
        "state": state,
        "created_at": created,
    }
    if state != "pending":
        doc["delivered_at"] = created + timedelta(minutes=rng.randint(1, 90))
        doc["delivered_by"] = "pilot@example.org"
    return doc


def plan(n_claims: int, seed: int = DEFAULT_SEED, now: datetime | None = None) -> _Gen:
    """Decide every claim, signal and lock of a brain of `n_claims` claims (no I/O)."""
    at_now = now or datetime.fromisoformat(DEFAULT_NOW)
    gen = _Gen(random.Random(seed), at_now)
    rng = gen.rng
    n_active = min(60, max(4, n_claims // 50))
    n_stale = min(25, max(1, n_claims // 1000))
    n_history = max(0, n_claims - n_active - n_stale)
    days = max(1, min(730, math.ceil(n_history / CLAIMS_PER_DAY)))
    n_projects = max(3, min(400, days // 5))
    projects = [f"p{number:03d}" for number in range(1, n_projects + 1)]

    history: list[_Claim] = []
    per_day = max(1, math.ceil(n_history / days))
    day = days
    while len(history) < n_history:
        start = at_now - timedelta(days=day) + timedelta(hours=rng.randint(7, 11))
        made_today = 0
        t = start
        while made_today < per_day and len(history) < n_history:
            left = min(n_history - len(history), per_day - made_today)
            if rng.random() < 0.15 or left < 4:
                items = [_solo(gen, t, active=False)]
            else:
                items = _tree(gen, rng.choice(projects), t, left, active=False)
            history.extend(items)
            made_today += len(items)
            t += timedelta(minutes=rng.randint(20, 90))
        day = max(1, day - 1)

    active_trees: list[list[_Claim]] = []
    active: list[_Claim] = []
    free_projects = list(projects)
    rng.shuffle(free_projects)
    t = at_now - timedelta(hours=2, minutes=30)
    while len(active) < n_active:
        left = n_active - len(active)
        if left < 4 or not free_projects or rng.random() < 0.2:
            solo = _solo(gen, t, active=True)
            solo.doc["scope"] = f"wiki/live-{len(active)}.md"
            solo.leaf_files = [solo.doc["scope"]]
            active.append(solo)
        else:
            tree = _tree(gen, free_projects.pop(), t, left, active=True)
            active_trees.append(tree)
            active.extend(tree)
        t += timedelta(minutes=rng.randint(1, 4))
    _activate(gen, active_trees)
    _keep_alive(gen, active)

    stale = [_stale(gen, at_now - timedelta(days=rng.randint(1, 9), hours=rng.randint(0, 12)))
             for _ in range(n_stale)]
    for claim in stale:  # a stale claim keeps its own (dead) file so nothing active overlaps it
        claim.doc["scope"] = f"wiki/abandoned-{claim.sess_id.rsplit('-', 1)[-1]}.md"

    gen.claims = history + stale + active
    _signals_for(gen, history, max(1, n_claims // 25), active)
    return gen


# --------------------------------------------------------------------------- writing

COMPOSE = """\
# brain-compose.yml — synthetic benchmark brain
brain_name: bench
timezone: UTC
kerneluser: false
sync: manual
ttl_default: 2h
circuit_breaker:
  max_consecutive_fails: 3
"""


def generate(root: str | os.PathLike[str], n_claims: int, seed: int = DEFAULT_SEED, *,
             now: str = DEFAULT_NOW, index: bool = False, git: bool = False) -> dict[str, int]:
    """Write a synthetic brain of `n_claims` claims at `root` (created; must be empty or absent).

    Args:
        root: the brain folder.
        n_claims: how many claim files.
        seed: the random seed (same seed → same files).
        now: the ISO "now" the brain is built for (active claims expire after it).
        index: also write BRAIN-INDEX.md (rendered by the product's core).
        git: also make it a git repository with one commit of everything.

    Returns:
        Counts: ``{"claims", "signals", "locks", "blocking"}``.

    Raises:
        FileExistsError: `root` exists and is not empty.
    """
    base = Path(root)
    if base.exists() and any(base.iterdir()):
        raise FileExistsError(f"{base} is not empty")
    at_now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    if at_now.tzinfo is None:
        at_now = at_now.replace(tzinfo=UTC)
    gen = plan(n_claims, seed, at_now)
    for folder in ("claims", "signals", "locks", "breath", ".brain"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    for folder in sorted(gen.folders):
        (base / folder).mkdir(parents=True, exist_ok=True)
    (base / "brain-compose.yml").write_text(COMPOSE, encoding="utf-8")
    (base / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    for folder in ("claims", "signals", "locks", "breath"):
        (base / folder / ".gitkeep").write_text("", encoding="utf-8")
    blocking = 0
    for claim in gen.claims:
        (base / "claims" / f"{claim.sess_id}.yml").write_text(to_yaml(claim.doc), encoding="utf-8")
        if claim.doc["status"] in ("open", "waiting_human", "paused", "stale"):
            blocking += 1
    for signal in gen.signals:
        (base / "signals" / f"{signal['sig_id']}.yml").write_text(to_yaml(signal), encoding="utf-8")
    for lock in gen.locks:
        name = quote(lock["file"], safe="") + ".yml"
        (base / "locks" / name).write_text(to_yaml(lock), encoding="utf-8")
    if index:
        _write_index(base, now)
    if git:
        _git_commit(base, at_now)
    return {"claims": len(gen.claims), "signals": len(gen.signals), "locks": len(gen.locks), "blocking": blocking}


def _write_index(base: Path, now: str) -> None:
    """BRAIN-INDEX.md as `bsi index` would write it (rendered by the core, no commit)."""
    from brain_tui.core.brain import Brain
    from brain_tui.core.records import index as index_mod

    brain = Brain(base, now=now, commit=False)
    block = index_mod.render_block(brain.snapshot(), brain.display_tz)
    (base / "BRAIN-INDEX.md").write_text(index_mod.apply_block(None, block), encoding="utf-8")


def _git_commit(base: Path, at_now: datetime) -> None:
    stamp = (at_now - timedelta(minutes=1)).isoformat()
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp,
           "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=base, env=env, check=True, stdout=subprocess.DEVNULL)

    git("init", "--quiet", "--initial-branch", "main")
    git("config", "user.name", "Bench")
    git("config", "user.email", "bench@example.org")
    git("add", "-A")
    git("commit", "--quiet", "--no-verify", "-m", "bench: synthetic brain")


def main(argv: list[str] | None = None) -> int:
    """Command line: ``generate.py PATH --claims N [--seed S] [--now ISO] [--index] [--git]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--now", default=DEFAULT_NOW)
    parser.add_argument("--index", action="store_true", help="also write BRAIN-INDEX.md")
    parser.add_argument("--git", action="store_true", help="also make it a git repository (one commit)")
    args = parser.parse_args(argv)
    try:
        counts = generate(args.path, args.claims, args.seed, now=args.now, index=args.index, git=args.git)
    except FileExistsError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"path": str(args.path), **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

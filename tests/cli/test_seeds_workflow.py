"""The seeds' workflow where the product used to differ: a v1 index's live claims, `completed`,
rows a seeds-era agent appends to the generated tables, claims with only an ID's minute."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, git, head, last_commit, ok
from tests.conftest import claim_file, load_claim, signal_docs

Bsi = Callable[..., Run]
NOW = "2026-11-29T10:00:00Z"
HOLDER = "sess-20261129-0930-scribe"

V1_INDEX = f"""# BRAIN-INDEX.md — Registre de claims

> Ne jamais éditer manuellement.

---

## Claims actifs

| Session | Instance | Portée | Niveau | Ouvert le | Expire le | État |
|---------|----------|--------|--------|-----------|-----------|------|
| {HOLDER} | prod@laptop | agents | dir | 2026-11-29 09:30 | 2026-11-29 11:30 | active |

---

## Claims stale — contrôle humain requis

| Session | Instance | Portée | Expiré le | Action requise |
|---------|----------|--------|-----------|----------------|
| sess-20261128-2200-old | prod@vps | todo/brain.md | 2026-11-29 00:00 | release |

---

## Signals — Bus inter-sessions

| ID | De | Pour | Type | Concerné | Payload | État |
|----|----|------|------|----------|---------|------|
| sig-20261129-001 | {HOLDER} | prod@desktop | INFO | agents/ | glossary pass | pending |

## Notes

Hand-written notes stay.
"""


def _v1_brain(brain: Path) -> Path:
    (brain / "BRAIN-INDEX.md").write_text(V1_INDEX, encoding="utf-8")
    git(brain, "add", "BRAIN-INDEX.md")
    git(brain, "commit", "--quiet", "-m", "a v1 index written by hand")
    return brain


def test_a_v1_index_s_live_claims_block_before_and_after_their_import(brain: Path, bsi: Bsi) -> None:
    root = _v1_brain(brain)
    refused = bsi("--json", "check-scope", "agents/x.md", brain=root, now=NOW)
    assert refused.code == 10, refused.out
    assert [c["sess_id"] for c in refused.json()["conflicts"]] == [HOLDER]
    assert bsi("check-scope", "todo/brain.md", brain=root, now=NOW).code == 10  # its stale table blocks too
    assert bsi("claim", "open", "--scope", "agents/", brain=root, now=NOW).code == 10
    ok(bsi("index", brain=root, now=NOW))  # the first write imports the rows as files, once
    holder = load_claim(root, HOLDER)
    assert (holder["scope"], holder["instance"], holder["imported_from"]) == ("agents/", "prod@laptop",
                                                                              "BRAIN-INDEX.md")
    assert load_claim(root, "sess-20261128-2200-old")["status"] == "stale"
    subject, files = last_commit(root)
    assert f"claims/{HOLDER}.yml" in files and "BRAIN-INDEX.md" in files
    assert bsi("check-scope", "agents/x.md", brain=root, now=NOW).code == 10
    text = (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    # SPEC 8: the markers are created at the end of the file and the text outside them is kept, the old
    # tables included (their rows are read at the migration, never again)
    assert text.startswith(V1_INDEX.rstrip("\n")) and text.rstrip("\n").endswith("<!-- bsi:generated:end -->")
    assert "Hand-written notes stay." in text
    assert {d["sig_id"] for d in signal_docs(root)} == {"sig-20261129-001"}
    # imported once: a claim file removed on purpose does not come back from the old rows
    git(root, "rm", "--quiet", f"claims/{HOLDER}.yml")
    git(root, "commit", "--quiet", "-m", "drop it")
    ok(bsi("index", brain=root, now=NOW))
    assert not claim_file(root, HOLDER).exists()
    assert bsi("check-scope", "agents/x.md", brain=root, now=NOW).code == 0


def test_a_human_release_of_an_index_only_stale_claim_writes_its_file(brain: Path, bsi: Bsi) -> None:
    root = _v1_brain(brain)
    ok(bsi("claim", "release", "sess-20261128-2200-old", "--reason", "gone", brain=root, now=NOW))
    assert load_claim(root, "sess-20261128-2200-old")["status"] == "released"
    assert bsi("check-scope", "todo/brain.md", brain=root, now=NOW).code == 0


def test_completed_is_the_seeds_close_and_blocks_nothing(brain: Path, bsi: Bsi) -> None:
    path = claim_file(brain, "sess-20261129-0800-done")
    path.write_text("sess_id: sess-20261129-0800-done\nscope: wiki/\nstatus: completed\n"
                    "opened_at: 2026-11-29T08:00:00Z\nclosed_at: 2026-11-29T09:00:00Z\n", encoding="utf-8")
    assert bsi("check-scope", "wiki/page.md", brain=brain, now=NOW).code == 0
    ok(bsi("index", brain=brain, now=NOW))
    history = (brain / "BRAIN-INDEX.md").read_text(encoding="utf-8").split("## Historique", 1)[1]
    row = next(line for line in history.splitlines() if "sess-20261129-0800-done" in line)
    assert row.rstrip().endswith("| closed |")


def test_a_claim_with_only_seed_002_s_fields_opens_at_its_id_s_minute(brain: Path, bsi: Bsi) -> None:
    sess_id = "sess-20261129-0930-seed2"
    claim_file(brain, sess_id).write_text(f"sess_id: {sess_id}\nscope: notes/\nstatus: open\nttl: 2h\n",
                                          encoding="utf-8")
    early = bsi("--json", "watchdog", brain=brain, now="2026-11-29T10:30:00Z").json()
    assert early["marked"] == [] and early["stale"] == 0
    assert bsi("--json", "claim", "show", sess_id, brain=brain, now=NOW).json()["status"] == "open"
    late = bsi("--json", "watchdog", brain=brain, now="2026-11-29T11:40:00Z").json()
    assert late["marked"] == [sess_id]


def test_a_signal_row_appended_to_the_generated_table_is_imported_not_deleted(brain: Path, bsi: Bsi) -> None:
    ok(bsi("index", brain=brain, now=NOW))
    path = brain / "BRAIN-INDEX.md"
    text = path.read_text(encoding="utf-8")
    row = "| sig-20261129-095500-ab12 | sess-20261129-0900-agent | prod@desktop | BLOCKED_ON | wiki/ | wait | pending |"
    marker = "## Historique"
    head_part, tail_part = text.split(marker, 1)
    head_part = head_part.replace("*Aucun signal.*", row)
    path.write_text(head_part + marker + tail_part, encoding="utf-8")
    git(brain, "commit", "--quiet", "-am", "an agent appends a signal row by hand")
    before = head(brain)
    run = bsi("--json", "index", brain=brain, now=NOW)
    assert run.code == 0 and run.json()["imported_signals"] == ["sig-20261129-095500-ab12"], run.err
    assert head(brain) != before
    (doc,) = signal_docs(brain)
    assert (doc["type"], doc["payload"], doc["state"]) == ("BLOCKED_ON", "wait", "pending")
    assert "sig-20261129-095500-ab12" in path.read_text(encoding="utf-8")


def test_a_refused_open_proposes_free_scopes_nearby_and_can_tell_the_holder(brain: Path, bsi: Bsi) -> None:
    for folder in ("be/api", "be/db"):
        (brain / folder).mkdir(parents=True)
    (brain / "be" / "README.md").write_text("# be\n", encoding="utf-8")
    (brain / "notes.md").write_text("# Notes\n\n## Intro\n\ntext\n\n## Backlog\n\n- a\n", encoding="utf-8")
    holder = ok(bsi("claim", "open", "--scope", "be/api/", "--scope", "notes.md#Intro", "--slug", "holder",
                    brain=brain, now=NOW)).strip()
    refused = bsi("--json", "claim", "open", "--scope", "be/", "--story", "schema pass", brain=brain, now=NOW)
    assert refused.code == 10
    assert refused.json()["alternatives"] == ["be/README.md", "be/db/"]
    assert refused.json().get("signals") is None and signal_docs(brain) == []
    section = bsi("--json", "claim", "open", "--scope", "notes.md", brain=brain, now=NOW).json()
    assert section["alternatives"] == ["notes.md#Backlog"]
    # the refused satellite tells the holder in the same step (seed 002), once
    before = head(brain)
    told = bsi("claim", "open", "--scope", "be/", "--story", "schema pass", "--blocked-on", brain=brain, now=NOW)
    assert told.code == 10 and "free nearby: be/README.md, be/db/" in told.err and "sent BLOCKED_ON" in told.err
    (signal,) = signal_docs(brain)
    assert (signal["type"], signal["to"], signal["state"]) == ("BLOCKED_ON", holder, "pending")
    assert "schema pass" in signal["payload"] and head(brain) != before
    assert bsi("claim", "open", "--scope", "be/", "--story", "schema pass", "--blocked-on",
               brain=brain, now=NOW).code == 10
    assert len(signal_docs(brain)) == 1  # an identical pending signal is not written twice
    assert ok(bsi("claim", "open", "--scope", "be/db/", brain=brain, now=NOW)).startswith("sess-")


def test_an_agent_s_blocked_on_at_a_refusal_is_signed_only_by_a_claim_of_its_own(brain: Path, bsi: Bsi) -> None:
    from tests.bsi import clean_env

    holder = ok(bsi("claim", "open", "--scope", "be/", "--slug", "holder", brain=brain, now=NOW)).strip()
    agent = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="agent-without-claim")
    refused = bsi("claim", "open", "--scope", "be/x.md", "--blocked-on", brain=brain, now=NOW, env=agent)
    assert refused.code == 10 and "--blocked-on sent nothing" in refused.err
    assert signal_docs(brain) == []  # never signed as the instance on an agent's behalf
    own = ok(bsi("claim", "open", "--scope", "docs/", "--slug", "mine", brain=brain, now=NOW, env=agent)).strip()
    assert bsi("claim", "open", "--scope", "be/x.md", "--blocked-on", brain=brain, now=NOW, env=agent).code == 10
    (signal,) = signal_docs(brain)
    assert (signal["from"], signal["to"], signal["type"]) == (own, holder, "BLOCKED_ON")

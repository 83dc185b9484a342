"""A claim file keeps SPEC 6.1's field order as its life adds fields: `closed_at` and `result` come before
`gate_history` and `circuit`, whatever happened first, and `result` lists its fields in SPEC's order.

A field SPEC 6.1 does not name (`gate_message`, `approved_tree`, a hand-added key) stays where it is; only the
relative order of SPEC's own fields is checked.
"""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

from tests.bsi import head, ok, run_bsi

#: SPEC 6.1's fields, in the order its example gives them.
SPEC_ORDER = ("sess_id", "type", "instance", "scope", "story_angle", "status", "opened_at", "ttl", "expires_at",
              "satellite_type", "satellite_level", "parent_satellite", "on_done", "on_partial", "on_fail",
              "theme_branch", "closed_at", "result", "gate_history", "circuit")
RESULT_ORDER = ("status", "files_modified", "tests", "children", "commit", "signal_id", "notes")


def keys(brain: Path, sess_id: str, inside: str | None = None) -> list[str]:
    doc = YAML(typ="rt").load((brain / "claims" / f"{sess_id}.yml").read_text(encoding="utf-8"))
    return list((doc[inside] if inside else doc).keys())


def in_spec_order(found: list[str], order: tuple[str, ...]) -> list[str]:
    return [key for key in found if key in order]


def test_a_leaf_that_went_through_a_gate_and_the_breaker_closes_in_spec_order(brain: Path) -> None:
    pilot = ok(run_bsi("claim", "open", "--scope", "engine/", "--type", "pilote", "--story", "pilot", brain=brain))
    leaf = ok(run_bsi("claim", "open", "--parent", pilot, "--satellite-type", "code", "--scope", "engine/server.py",
                      "--story", "Implement BE-6 feature X", "--on-done", "trigger → type:test scope:engine/",
                      "--theme-branch", "theme/be6", brain=brain))
    ok(run_bsi("gate", "request", leaf, "deploy ok?", brain=brain))
    ok(run_bsi("gate", "approve", leaf, "go", brain=brain))
    ok(run_bsi("preflight", "fail", leaf, brain=brain))
    commit = head(brain)
    ok(run_bsi("claim", "close", leaf, "--tests-total", "2", "--tests-passed", "2", "--tests-failed", "0",
               "--files", "engine/server.py", "--commit", commit, "--notes", "done", brain=brain))
    found = in_spec_order(keys(brain, leaf), SPEC_ORDER)
    assert found == sorted(found, key=SPEC_ORDER.index), found
    assert {"closed_at", "result", "gate_history", "circuit"} <= set(found)
    result = in_spec_order(keys(brain, leaf, "result"), RESULT_ORDER)
    assert result == ["status", "files_modified", "tests", "commit", "signal_id", "notes"], result


def test_a_domain_closes_with_its_children_in_spec_order(brain: Path) -> None:
    domain = ok(run_bsi("claim", "open", "--scope", "api/", "--level", "domain", "--satellite-type", "domain",
                        brain=brain))
    leaf = ok(run_bsi("claim", "open", "--parent", domain, "--scope", "api/x.md", "--satellite-type", "brain-write",
                      brain=brain))
    ok(run_bsi("claim", "close", leaf, "--status", "ok", "--files", "api/x.md", brain=brain))
    ok(run_bsi("gate", "request", domain, "ready?", brain=brain))
    ok(run_bsi("gate", "approve", domain, brain=brain))
    ok(run_bsi("claim", "close", domain, "--notes", "all in", brain=brain))
    found = in_spec_order(keys(brain, domain), SPEC_ORDER)
    assert found == sorted(found, key=SPEC_ORDER.index), found
    result = in_spec_order(keys(brain, domain, "result"), RESULT_ORDER)
    assert result == sorted(result, key=RESULT_ORDER.index) and "children" in result, result


def test_a_field_spec_does_not_name_keeps_its_place(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "notes/", brain=brain))
    path = brain / "claims" / f"{sess}.yml"
    path.write_text(path.read_text(encoding="utf-8") + "my_note: kept last  # by hand\n", encoding="utf-8")
    ok(run_bsi("claim", "close", sess, "--status", "ok", "--no-commit", brain=brain))
    text = path.read_text(encoding="utf-8")
    assert text.index("closed_at:") < text.index("result:") < text.index("my_note: kept last  # by hand")

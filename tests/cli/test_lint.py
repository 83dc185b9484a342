"""`bsi lint`: brain-language headers (ADR-010, SPEC 18), read from the header only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.records import headers
from brain_tui.core.records.headers import HEADER_READ_LIMIT, lint
from tests.bsi import bsi_at, clean_env

#: The inherited environment minus the brain's root and clock.
ENV = clean_env(drop=("BRAIN_ROOT", "BRAIN_NOW"), pin=False)

GOOD_MD = """\
---
name: context-broker
brain:
  version: 1
  type: protocol
  scope: kernel
  owner: human
  writer: human
  lifecycle: stable
  read: trigger
  triggers: [sprint, use-brain]
  export: true
---

# Agent : context-broker
"""

BAD_MD = """\
---
brain:
  version: 1
  type: decision
  scope: write
  lifecycle: forever
  read: sometimes
  triggers:
    - sprint
    - inhale
  export: "yes"
---
# body
"""

GOOD_PY = """\
#!/usr/bin/env python3
# brain:
#   version: 1
#   type: work
#   scope: satellite
#   lifecycle: sprint
#   read: full
#   triggers: [deploy]
#   export: false
import os
"""

GOOD_TS = """\
// brain:
//   type: reference
//   scope: instance
//   lifecycle: permanent
//   read: header
export const x = 1;
"""

BAD_SH = """\
# brain:
#   type: work
#   scope: work
#   lifecycle: session
#   read: header
#   triggers: [sprint, coffee]
#   export: 1
echo hi
"""


#: `bsi(brain, *args)`: `bsi --brain BRAIN ARGS…` from the brain folder, on the real clock.
bsi = bsi_at(None, env=ENV, timeout=120)


def make_brain(root: Path, files: dict[str, str | bytes]) -> Path:
    """A brain folder (claims/ marks it) holding `files`."""
    (root / "claims").mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def by_file(findings: list[Any]) -> dict[str, list[tuple[int, str]]]:
    """path → [(line, field)]."""
    out: dict[str, list[tuple[int, str]]] = {}
    for f in findings:
        out.setdefault(f.path, []).append((f.line, f.field))
    return out


def test_good_headers_are_clean(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {"agents/broker.md": GOOD_MD, "scripts/deploy.py": GOOD_PY, "src/x.ts": GOOD_TS})
    assert lint(root) == []
    p = bsi(root, "lint")
    assert p.code == 0, p.out + p.err
    assert p.out == ""
    p = bsi(root, "lint", "--json")
    assert p.code == 0 and json.loads(p.out) == {"findings": []}


def test_every_invalid_field_is_reported_with_its_line(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {"bad.md": BAD_MD, "bad.sh": BAD_SH})
    found = by_file(lint(root))
    assert found["bad.md"] == [(4, "type"), (5, "scope"), (6, "lifecycle"), (7, "read"), (10, "triggers"),
                               (11, "export")]
    assert found["bad.sh"] == [(6, "triggers"), (7, "export")]
    messages = " ".join(f.message for f in lint(root))
    assert "'decision'" in messages and "invariant | context" in messages
    assert "'inhale'" in messages and "'coffee'" in messages and "on-demand" in messages
    assert "export must be a boolean" in messages


def test_missing_headers_in_markdown_and_code(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {
        "plain.md": "# no front matter\n",
        "nobrain.md": "---\nname: adr-010\ntype: decision\n---\n# ADR\n",
        "script.py": "import os\n# brain:\n#   type: work\n",  # not a *leading* comment block
        "empty.ts": "",
        "notes.txt": "not a brain file type: never walked\n",
    })
    found = by_file(lint(root))
    assert found == {"empty.ts": [(1, "header")], "nobrain.md": [(1, "brain")], "plain.md": [(1, "header")],
                     "script.py": [(1, "header")]}


def test_missing_required_field_and_read_trigger_without_triggers(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {"a.md": "---\nbrain:\n  type: work\n  scope: work\n  read: trigger\n---\n"})
    assert by_file(lint(root))["a.md"] == [(2, "lifecycle"), (5, "triggers")]


def test_invalid_yaml_header_is_a_finding(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {"a.md": "---\nbrain:\n  type: [work\n---\n", "b.md": "---\nbrain:\n  type: work\n"})
    found = {f.path: f for f in lint(root)}
    assert found["a.md"].field == "header" and "not valid YAML" in found["a.md"].message
    assert "not closed" in found["b.md"].message


def test_cli_exit_codes_paths_and_json(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {"good.md": GOOD_MD, "bad.md": BAD_MD, "sub/good.py": GOOD_PY, "sub/bad.sh": BAD_SH})
    assert bsi(root, "lint", "good.md", "sub/good.py").code == 0
    p = bsi(root, "lint", "bad.md")
    assert p.code == 1
    assert "bad.md:4: type: invalid type 'decision'" in p.out
    p = bsi(root, "lint", "--json", "sub")
    assert p.code == 1
    doc = json.loads(p.out)
    assert set(doc) == {"findings"}
    assert {tuple(sorted(f)) for f in doc["findings"]} == {("field", "line", "message", "path")}
    assert {f["path"] for f in doc["findings"]} == {"sub/bad.sh"}
    assert bsi(root, "lint", "does-not-exist.md").code == 66


def test_walk_skips_data_folders_generated_index_and_hidden(tmp_path: Path) -> None:
    root = make_brain(tmp_path, {
        "ok.md": GOOD_MD,
        "BRAIN-INDEX.md": "# generated\n",
        "claims/sess-20261129-1000-a.yml": "sess_id: sess-20261129-1000-a\n",
        "signals/sig-x.yml": "sig_id: x\n",
        "locks/a.yml": "holder: x\n",
        "breath/sprint-a.yml": "sprint: sprint-a\n",
        ".git/hooks/pre-commit.sh": "echo\n",
        ".brain/cache.md": "x\n",
        "node_modules/pkg/index.js": "x\n",
    })
    assert lint(root) == []
    assert bsi(root, "lint").code == 0


def test_a_huge_file_is_read_only_up_to_its_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    junk = b"\xff\xfe\x00" * (10 * 1024 * 1024 // 3)  # 10 MB of bytes that are not UTF-8
    root = make_brain(tmp_path, {"big.md": GOOD_MD.encode() + junk, "big.py": GOOD_PY.encode() + junk,
                                 "unclosed.md": b"---\nbrain:\n  type: work\n" + b"x: y\n" * 2_000_000})
    read_sizes: list[int] = []
    real_open = open

    def tracking_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(path, mode, *args, **kwargs)
        real_read = handle.read

        def read(size: int = -1) -> Any:
            assert size >= 0, "a header must never be read with an unbounded read()"
            data = real_read(size)
            read_sizes.append(len(data))
            return data

        handle.read = read
        return handle

    monkeypatch.setattr(headers, "open", tracking_open, raising=False)
    found = lint(root)
    assert [(f.path, f.field) for f in found] == [("unclosed.md", "header")]
    assert "within the first 8 KiB" in found[0].message
    assert read_sizes and max(read_sizes) <= HEADER_READ_LIMIT + 1
    monkeypatch.undo()
    p = bsi(root, "lint", "big.md", "big.py")
    assert p.code == 0, p.out + p.err


def test_lint_refuses_files_outside_the_brain(tmp_path: Path) -> None:
    root = make_brain(tmp_path / "b", {"agents/broker.md": GOOD_MD})
    secret = tmp_path / "secret.md"
    secret.write_text("no header, private text\n", encoding="utf-8")
    for given in (str(secret), "../secret.md", "/etc/passwd"):
        p = bsi(root, "lint", given)
        assert p.code == 65, (given, p.out, p.err)
        assert "outside the brain" in p.err
        assert "secret" not in p.out and "root:" not in p.out
    assert bsi(root, "lint", "agents/broker.md").code == 0


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_a_blank_path_is_65_never_a_lint_of_the_whole_brain(tmp_path: Path, blank: str) -> None:
    root = make_brain(tmp_path, {"bad.md": BAD_MD})
    p = bsi(root, "lint", blank)
    assert p.code == 65, (p.out, p.err)
    assert "empty path" in p.err and "bad.md" not in p.out


def test_every_markdown_suffix_a_section_may_name_is_linted_as_markdown(tmp_path: Path) -> None:
    """The files whose `##` sections a scope may name (`paths.scope.MARKDOWN_SUFFIXES`) are markdown to lint too:
    one table, so `notes.mdown` is not markdown to one rule and something else to another."""
    root = tmp_path / "b"
    root.mkdir()
    for suffix in (".md", ".markdown", ".mdown", ".mkd", ".MDX"):
        (root / f"good{suffix}").write_text(GOOD_MD, encoding="utf-8")
        (root / f"bare{suffix}").write_text("# no header\n", encoding="utf-8")
    found = by_file(lint(root))
    assert sorted(found) == sorted(f"bare{s}" for s in (".md", ".markdown", ".mdown", ".mkd", ".MDX")), found

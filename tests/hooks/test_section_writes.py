"""Two sessions holding two `##` sections of one markdown file: each writes its own section only (SPEC 5.2, 10,
20.2). `bsi hook pre-tool-use` computes the file an edit tool leaves and refuses a change of any text outside the
session's held sections (another section, a heading, the text before the first heading); a write whose result it
cannot know (the shell, a notebook tool) is refused for a file the session holds by sections only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, ok, run_bsi
from tests.conftest import copy_brain, template_from
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, hook

OTHER = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
PLAN = "# Plan\n\nintro\n\n## Alpha\nalpha text\n\n## Beta\nbeta text\n"


def call(brain: Path, tool: str, tool_input: dict[str, Any], session: str = AGENT) -> dict[str, Any]:
    """A PreToolUse event of `tool` with its whole input."""
    return {"session_id": session, "transcript_path": f"/home/u/.claude/projects/x/{session}.jsonl",
            "cwd": str(brain), "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_01ABC"}


def edit(brain: Path, old: str, new: str, session: str = AGENT, **extra: Any) -> Any:
    return hook(brain, "pre-tool-use", call(brain, "Edit", {"file_path": str(brain / "plan.md"),
                                                            "old_string": old, "new_string": new, **extra}, session))


def write(brain: Path, content: str, session: str = AGENT) -> Any:
    return hook(brain, "pre-tool-use", call(brain, "Write", {"file_path": str(brain / "plan.md"),
                                                             "content": content}, session))


def two_sections(brain: Path, text: str | None = PLAN) -> None:
    """plan.md (`text`; None: no file yet); AGENT holds `plan.md#Alpha`, OTHER `plan.md#Beta`."""
    if text is not None:
        (brain / "plan.md").write_bytes(text.encode())
    ok(run_bsi("claim", "open", "--scope", "plan.md#Alpha", "--agent-session", AGENT, "--slug", "a", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "plan.md#Beta", "--agent-session", OTHER, "--slug", "b", brain=brain))


@pytest.fixture(scope="session")
def _two_sections_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = template_from(_brain_template, tmp_path_factory, "two-sections")
    two_sections(root)
    return root


@pytest.fixture
def sections(brain: Path, _two_sections_template: Path) -> Path:
    """`brain` after `two_sections(brain)` (PLAN, AGENT on Alpha, OTHER on Beta): built once, copied per test."""
    return copy_brain(_two_sections_template, brain)


@pytest.mark.usefixtures("sections")
def test_an_edit_inside_the_own_section_goes(brain: Path) -> None:
    assert_allowed(edit(brain, "alpha text", "alpha text, more"))
    assert_allowed(edit(brain, "beta text", "beta, more", session=OTHER))
    assert_allowed(write(brain, PLAN.replace("alpha text", "new alpha")))
    assert_allowed(hook(brain, "pre-tool-use", call(brain, "MultiEdit", {
        "file_path": str(brain / "plan.md"), "edits": [{"old_string": "alpha", "new_string": "first"},
                                                       {"old_string": "first text", "new_string": "second"}]})))


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize(("old", "new", "extra"), [
    ("beta text", "HACKED", {}),  # inside Beta
    ("alpha text\n\n## Beta\nbeta", "x", {}),  # across Alpha and Beta
    ("## Beta", "## Gamma", {}),  # renaming Beta: B's claim names no section any more
    ("## Alpha", "## Alpha2", {}),  # renaming its own: the text becomes a section nobody holds
    ("intro", "INTRO", {}),  # the text before the first heading
    ("text", "TEXT", {"replace_all": True}),  # both sections at once
    ("alpha text", "alpha\n## Gamma\nsplit", {}),  # a new heading: a section nobody holds
    ("alpha text", "alpha\n## Beta\nsecond", {}),  # a second Beta
    ("alpha text", "alpha\n```", {}),  # an unclosed fence swallows Beta's heading
    ("alpha text", "alpha\n# Top", {}),  # an h1: what follows is no longer Alpha
    ("alpha text\n\n", "alpha text\x0c", {}),  # Beta's heading joins Alpha's last line: no heading any more
    ("alpha text\n\n", "alpha text\u2028", {}),  # a line separator ends no markdown line either
    ("alpha text", "alpha\n<!--", {}),  # a comment never closed: Beta's heading and text vanish from the page
    ("alpha text\n\n", "alpha\n<div>\n", {}),  # an HTML block runs to a blank line: Beta's heading is in it
    ("alpha text", "alpha\n<pre>", {}),  # runs to its closing tag, over blank lines
])
def test_an_edit_reaching_outside_the_own_section_is_denied(brain: Path, old: str, new: str,
                                                            extra: dict[str, Any]) -> None:
    assert_denied(edit(brain, old, new, **extra), "plan.md")
    assert (brain / "plan.md").read_text() == PLAN


@pytest.mark.usefixtures("sections")
def test_multi_edit_write_and_notebook_outside_the_section_are_denied(brain: Path) -> None:
    path = str(brain / "plan.md")
    assert_denied(hook(brain, "pre-tool-use", call(brain, "MultiEdit", {"file_path": path, "edits": [
        {"old_string": "alpha text", "new_string": "a"}, {"old_string": "beta text", "new_string": "b"}]})))
    assert_denied(write(brain, PLAN.replace("beta text", "gone")))
    assert_denied(write(brain, "## Alpha\nonly mine\n"))
    assert_denied(hook(brain, "pre-tool-use", call(brain, "NotebookEdit", {"notebook_path": path,
                                                                           "new_source": "x"})))


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize("command", [
    "sed -i 's/beta/HACKED/' plan.md",
    "perl -pi -e 's/beta/HACKED/' plan.md",
    "echo more >> plan.md",
    "cp other.md plan.md",
    "truncate -s 0 plan.md",
])
def test_the_shell_cannot_show_what_it_changes_in_a_section(brain: Path, command: str) -> None:
    assert_denied(hook(brain, "pre-tool-use", call(brain, "Bash", {"command": command})), "section")


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize("command", [
    "python3 -c \"open('plan.md','a').write('x')\"",
    "python3 - <<'EOF'\nwith open('plan.md', 'w') as f:\n    f.write('x')\nEOF",
    "node -e \"require('fs').writeFileSync('plan.md', 'x')\"",
    "perl -e 'open(my $f, \">>\", \"plan.md\"); print $f \"x\"'",
    "ruby -e 'File.write(\"./plan.md\", \"x\")'",
    "cd /tmp && python3 -c \"import os; os.remove('{brain}/plan.md')\"",
    "echo \"open('plan.md','a').write('x')\" | python3",
])
def test_inline_code_writing_a_file_held_by_sections_is_denied(brain: Path, command: str) -> None:
    """The OS sandbox opens the whole file to the shell for a section scope: the hook is the only guard."""
    line = command.replace("{brain}", str(brain))
    assert_denied(hook(brain, "pre-tool-use", call(brain, "Bash", {"command": line})), "plan.md", "section")
    assert_denied(hook(brain, "pre-tool-use", call(brain, "Bash", {"command": line}, session=OTHER)), "plan.md")


@pytest.mark.usefixtures("sections")
def test_the_index_shortcut_leaves_inline_code_of_a_section_holder_to_the_core(brain: Path) -> None:
    """With a settled index the shortcut answers a shell line writing nothing it reads as a target: inline code
    naming a file the session holds by sections goes to the core, which refuses it."""
    from brain_tui.hooks import fast
    from tests.hooks.test_hook_index import settle

    settle(brain)
    line = "python3 -c \"open('plan.md','a').write('x')\""
    event = call(brain, "Bash", {"command": line})
    assert fast.decide(event, {"brain": str(brain), "now": NOW}, {}) is None
    assert_denied(hook(brain, "pre-tool-use", event), "plan.md")
    plain = call(brain, "Bash", {"command": "python3 -c \"print(open('plan.md').read())\""})
    assert fast.decide(plain, {"brain": str(brain), "now": NOW}, {}) == (0, "", "")


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize("command", [
    "python3 -c \"print(open('plan.md').read())\"",
    "node -e \"console.log(require('fs').readFileSync('plan.md', 'utf8'))\"",
    "grep Beta plan.md",
    "cat plan.md",
    "python3 -c \"open('out.txt','w').write('x')\"",  # writing code naming no section-held file
])
def test_reading_a_file_held_by_sections_stays_allowed(brain: Path, command: str) -> None:
    assert_allowed(hook(brain, "pre-tool-use", call(brain, "Bash", {"command": command})))


@pytest.mark.usefixtures("sections")
def test_inline_code_naming_another_sessions_whole_file_is_left_to_the_sandbox(brain: Path) -> None:
    """A file another session holds whole is fenced by the OS sandbox exactly (reads go, writes fail); the hook's
    reading of inline code is a guess by words (`copy`, `run`), so it does not refuse that code on its own."""
    (brain / "other.md").write_text("other\n")
    ok(run_bsi("claim", "open", "--scope", "other.md", "--agent-session", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
               "--slug", "o", brain=brain))
    assert_allowed(hook(brain, "pre-tool-use", call(brain, "Bash", {
        "command": "python3 -c \"import shutil; shutil.copy('other.md', '/tmp/other-copy.md')\""})))


@pytest.mark.parametrize(("text", "old"), [
    ("## Alpha\na\n\nBeta\n----\nb\n", "\nb\n"),  # a setext heading: not Alpha's
    ("## Alpha\na\n\n##Beta\nb\n", "\nb\n"),  # no space: a heading to some readers
    ("## Alpha\r\na\r\n\r\n## Beta\r\nb\r\n", "b\r\n"),  # CRLF
    ("\ufeff## Alpha\na\n\n## Beta ##\nb\n", "\nb\n"),  # a BOM, a closing sequence
    ("## Alpha\na\n\n## **Beta**   \nb\n", "\nb\n"),  # emphasis, trailing spaces
    ("## Alpha\na\n\n## Alpha\nb\n", "a\n"),  # two Alphas: which one is held is unknown
    ("## Alpha\n```\na\n\n## Beta\nb\n", "\nb\n"),  # a fence never closed: Beta is still Beta
])
def test_headings_read_every_way_keep_beta_out_of_alpha(brain: Path, text: str, old: str) -> None:
    two_sections(brain, text)
    assert_denied(edit(brain, old, old.replace("b", "HACKED").replace("a", "HACKED")))


def test_a_heading_in_a_fence_is_text_of_its_section(brain: Path) -> None:
    two_sections(brain, "## Alpha\na\n```\n## Beta\n```\nafter\n~~~\n## Beta\n~~~\n\n## Beta\nb\n")
    assert_allowed(edit(brain, "after", "AFTER"))
    assert_denied(edit(brain, "after", "AFTER", session=OTHER))
    assert_denied(edit(brain, "\nb\n", "\nB\n"))


@pytest.mark.usefixtures("sections")
def test_html_closed_inside_the_own_section_goes(brain: Path) -> None:
    assert_allowed(edit(brain, "alpha text", "alpha\n<!-- a note -->\n<div>\nx\n</div>"))
    assert_allowed(edit(brain, "alpha text", "alpha\n<pre>\n\ncode\n</pre>"))


@pytest.mark.usefixtures("sections")
def test_another_spelling_of_the_file_is_not_a_new_file(brain: Path) -> None:
    """On Linux `PLAN.md` is a new file; the brain reads it as plan.md (one scope on a case-insensitive disk, where
    a checkout of both keeps one): writing it whole would replace Beta there, so it is refused."""
    assert_denied(hook(brain, "pre-tool-use", call(brain, "Write", {"file_path": str(brain / "PLAN.md"),
                                                                    "content": "## Alpha\nmine\n"})), "plan.md")
    assert not (brain / "PLAN.md").exists()


def test_a_section_of_a_file_not_there_yet(brain: Path) -> None:
    two_sections(brain, None)
    assert_allowed(write(brain, "## Alpha\nnew\n"))
    assert_denied(write(brain, "## Alpha\nnew\n\n## Beta\nmine too\n"))
    assert_denied(write(brain, "intro\n\n## Alpha\nnew\n"))



@pytest.mark.usefixtures("sections")
def test_the_index_shortcut_leaves_a_section_holders_write_to_the_core(brain: Path) -> None:
    b = Brain(brain, now=NOW, commit=False)
    index = hook_index.build(brain, b.snapshot(only_statuses=BLOCKING_STATUSES), b.config)
    for claim in b.snapshot().claims:
        assert not hook_index.may_write(index, claim.sess_id, "plan.md", b.now().timestamp())


def patch(brain: Path, body: str, session: str = AGENT) -> Any:
    """Codex's `apply_patch` with `body` between the patch's first and last line."""
    return hook(brain, "pre-tool-use", call(brain, "apply_patch", {
        "command": f"*** Begin Patch\n{body}*** End Patch\n"}, session))


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize("body", [
    "*** Update File: plan.md\n@@\n ## Alpha\n-alpha text\n+alpha text, more\n",
    "*** Update File: plan.md\n@@ ## Alpha\n-alpha text\n+one\n+two\n",
    "*** Update File: plan.md\n ## Alpha\n-alpha text\n+new\n \n",  # the first chunk may omit `@@`
])
def test_a_codex_patch_inside_the_own_section_goes(brain: Path, body: str) -> None:
    assert_allowed(patch(brain, body))


@pytest.mark.usefixtures("sections")
@pytest.mark.parametrize("body", [
    "*** Update File: plan.md\n@@\n ## Beta\n-beta text\n+HACKED\n",  # B's text
    "*** Update File: plan.md\n@@\n-## Beta\n+## Gamma\n",  # B's heading
    "*** Update File: plan.md\n@@\n-alpha text\n+alpha\n+## Gamma\n",  # a new heading
    "*** Update File: plan.md\n@@\n ## Alpha\n-alpha texts\n+x\n",  # a line that is not there: fuzzy at best
    "*** Update File: plan.md\n@@\n-alpha text \n+x\n",  # Codex would match it ignoring the space: refused
    "*** Update File: plan.md\n*** Move to: gone.md\n@@\n-alpha text\n+x\n",  # a rename takes Beta along
    "*** Add File: plan.md\n+## Alpha\n+mine\n",  # over the file
    "*** Delete File: plan.md\n",
    "*** Update File: plan.md\n@@\n-alpha text\n+x\n*** Update File: plan.md\n@@\n-beta text\n+y\n",
    "*** Update File: plan.md\n@@\n-alpha text\n+x\n  *** Update File: plan.md\n@@\n-beta text\n+y\n",
])
def test_a_codex_patch_reaching_outside_the_own_section_is_denied(brain: Path, body: str) -> None:
    assert_denied(patch(brain, body), "plan.md")

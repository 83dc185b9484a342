"""What a command does with the text the line hands it on standard input (SPEC 21.3): an editor's commands
(`ed`, `ex`) and `xargs`'s arguments, when the line shows them (`<<<`, a here-document, `echo`/`printf |`)."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def paths(command: str) -> set[str]:
    return {t.path for t in read_command(command, W).targets}


@pytest.mark.parametrize("command", [
    "printf 'w claims/a.yml\\n' | ed notes/a.md",
    "printf '1,$d\\nw claims/a.yml\\nq\\n' | ed -s notes/a.md",
    "ed -s notes/a.md <<< 'w claims/a.yml'",
    "ed notes/a.md <<EOF\n,s/a/b/\nw claims/a.yml\nq\nEOF",
    "ed notes/a.md <<'EOF'\ng/x/w claims/a.yml\nEOF",
    "cat <<EOF | ed notes/a.md\nwq claims/a.yml\nEOF",
    "ed notes/a.md <<< '!rm -rf claims/a.yml'",
    "ed notes/a.md <<< 'w !tee claims/a.yml'",
    "ed notes/a.md <<< $'f claims/a.yml\\nw'",
    "ex -s notes/a.md <<< ':w claims/a.yml'",
    "vim -es notes/a.md <<< 'saveas claims/a.yml'",
    "echo 'w claims/a.yml' | red notes/a.md",
])
def test_an_editor_script_on_standard_input_is_read(command: str) -> None:
    assert "/w/claims/a.yml" in paths(command), paths(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("printf 'a\\nwrite this\\nwq claims\\n.\\nw\\n' | ed notes/a.md", {"/w/notes/a.md"}),
    ("printf ',s/a/b/g\\nw\\nq\\n' | ed -s notes/a.md", {"/w/notes/a.md"}),
    ("ed notes/a.md <<EOF\n2i\nw claims/x\nf claims/y\n.\nw\nEOF", {"/w/notes/a.md"}),
])
def test_an_editor_script_writing_its_own_file_names_only_it(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("xargs rm -rf <<< claims", {"/w/claims"}),
    ("echo claims | xargs rm -rf", {"/w/claims"}),
    ("echo notes/a claims | xargs -n 1 rm", {"/w/claims", "/w/notes/a"}),
    ("printf 'claims\\n' | xargs -I{} rm -rf {}", {"/w/claims"}),
    ("printf 'a.yml\\n' | xargs -I F cp x claims/F", {"/w/claims/a.yml"}),
    ("printf 'claims\\0' | xargs -0 -r rm -r", {"/w/claims"}),
    ("xargs -t sudo rm -rf <<EOF\nclaims\nEOF", {"/w/claims"}),
    ("cat <<EOF | xargs touch\nclaims/a.yml 'claims/b c'\nEOF", {"/w/claims/a.yml", "/w/claims/b c"}),
    ("echo notes/a.md | xargs cat", set()),
    ("ls | xargs rm", set()),
])
def test_xargs_arguments_the_line_shows_are_read(command: str, expected: set[str]) -> None:
    assert paths(command) == expected


@pytest.mark.parametrize("command", ["xargs -a list rm", "xargs --arg-file=list rm -rf", "xargs -alist -n1 mv -t x",
                                     "xargs --arg-file list -I{} cp x {}", "xargs -a list sudo tee",
                                     "xargs -0 -a list touch", "cat list | xargs -a list rm"])
def test_xargs_writing_arguments_from_a_file_cannot_be_read(command: str) -> None:
    """The arguments come from a file the line does not show: what the command writes is unknown."""
    assert "xargs" in read_command(command, "/w").partial, command


@pytest.mark.parametrize(("command", "expected"), [
    ("xargs -a list cp -t notes/sub", {("/w/notes/sub", True)}),
    ("xargs -a list grep x", set()), ("xargs -a list cat > notes/out", {("/w/notes/out", False)}),
    ("xargs -a list", set()), ("xargs --arg-file=list wc -l", set()),
])
def test_xargs_with_arguments_from_a_file_writing_none_of_them_is_read(command: str,
                                                                       expected: set[tuple[str, bool]]) -> None:
    reading = read_command(command, "/w")
    assert not reading.partial and {(t.path, t.tree) for t in reading.targets} == expected, command

"""Reading a shell command line's write targets (SPEC 21.3): what is read, and what is left to the sandbox."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def targets(command: str | list[str], cwd: str = W) -> list[tuple[str, bool]]:
    return [(t.path, t.tree) for t in read_command(command, cwd, home="/home/u").targets]


@pytest.mark.parametrize(("command", "expected"), [
    ("echo paused-bash >> brain-engine/api/routes.py", [("/w/brain-engine/api/routes.py", False)]),
    ("echo a > x; echo b >| y && echo c &> z || echo d 2> e", [("/w/x", False), ("/w/y", False),
                                                              ("/w/z", False), ("/w/e", False)]),
    ("cmd 2>/dev/null >&2 >& f", [("/w/f", False)]),
    ("ls | tee -a log.txt out.txt", [("/w/log.txt", False), ("/w/out.txt", False)]),
    ("cp a.py b.py src/", [("/w/src/a.py", False), ("/w/src/b.py", False)]),
    ("cp -t dst a", [("/w/dst/a", False)]),
    ("mv old.py new.py", [("/w/new.py", False), ("/w/old.py", False)]),
    # a hard link is a second name of the source's content: a write through it writes the source
    ("ln claims/x.yml notes/c.yml", [("/w/notes/c.yml", False), ("/w/claims/x.yml", False)]),
    ("cp -l .mcp.json /tmp/h", [("/tmp/h", False), ("/w/.mcp.json", False)]),
    ("ln -sf ../lib lib", [("/w/lib", False)]),
    ("install -m 644 a /opt/a", [("/opt/a", False)]),
    ("rsync -a src/ dst/", [("/w/dst", True)]),
    ("rsync -a src/ host:dst/", []),
    ("rm -rf build x", [("/w/build", True), ("/w/x", True)]),
    ("touch -d today a; mkdir -p b/c; rmdir d; truncate -s 0 e", [("/w/a", False), ("/w/b/c", False),
                                                                  ("/w/d", False), ("/w/e", False)]),
    ("ln -s target link", [("/w/link", False)]),
    ("sed -i 's/a/b/' f1 f2", [("/w/f1", False), ("/w/f2", False)]),
    ("sed -i.bak -e 's/a/b/' f1", [("/w/f1", False), ("/w/f1.bak", False)]),  # (its backup too)
    ("sed 's/a/b/' f1", []),
    ("perl -pi -e 's/a/b/' f.pl", [("/w/f.pl", False)]),
    ("git -C repo checkout -- a.py", [("/w/repo/a.py", False)]),
    ("git checkout main", []),
    ("git restore src/a.py; git restore --staged b", [("/w/src/a.py", False)]),
    ("git rm --cached x; git rm -r d", [("/w/d", True)]),
    ("git mv a b", [("/w/b", False), ("/w/a", False)]),
    ("git commit -am x && git pull --rebase && git push", []),
    ("cd sub && rm f && cd .. && rm g", [("/w/sub/f", False), ("/w/g", False)]),
    ("(cd sub; rm f); rm g", [("/w/f", False), ("/w/g", False), ("/w/sub/f", False)]),  # (no /w/sub: cd may fail)
    ("cd && rm f", [("/home/u/f", False)]),
    ("sudo -u root rm /etc/x; env A=1 truncate -s 0 t; timeout 5 touch u; X=1 touch v",
     [("/etc/x", False), ("/w/t", False), ("/w/u", False), ("/w/v", False)]),
    ("bash -lc 'echo hi > inner.txt'", [("/w/inner.txt", False)]),
    ("cat > f <<EOF\nrm -rf /\nEOF\necho done > g", [("/w/f", False), ("/w/g", False)]),
    ("rm x # rm -rf y", [("/w/x", False)]),
    # a `#` inside quotes or inside a word starts no comment (the shell writes these files)
    ("printf '#!/bin/sh\\n' > hook", [("/w/hook", False)]),
    ('echo "# title" > notes.md', [("/w/notes.md", False)]),
    ("echo a#b > f", [("/w/f", False)]),
    ("echo \\#x > f", [("/w/f", False)]),
    ("echo x;# > g\necho y > h", [("/w/h", False)]),
    # a setting of git's config is a write of the config file (it may name a program git runs)
    ("git config core.fsmonitor 'touch x'", [("/w/.git/config", False)]),
    ("git -C sub config --unset core.hooksPath", [("/w/sub/.git/config", False)]),
    ("git config -f other.cfg a.b c", [("/w/other.cfg", False)]),
    ("git config --get user.name", []),
    ("git config user.name", []),
    ("git config --global alias.co checkout", [(os.path.join(os.environ.get("HOME", ""), ".gitconfig"), False)]),
    ("dd if=/dev/zero of=disk.img", [("/w/disk.img", False)]),
    ("echo 'a > b' \"c >> d\"", []),
    ("cat claims/x.yml; bsi claim list; grep -r x .", []),
])
def test_write_targets_are_read(command: str, expected: list[tuple[str, bool]]) -> None:
    assert targets(command) == expected


def test_an_argv_list_is_one_command() -> None:
    assert targets(["bash", "-lc", "echo x > y"]) == [("/w/y", False)]
    assert targets(["touch", "a b"]) == [("/w/a b", False)]


@pytest.mark.parametrize("command", ["echo $(date) > /dev/null", "ls | xargs rm", "cd $DIR && rm f", "rm $X",
                                     "python -c 'open(\"f\",\"w\")'", "echo `x`",
                                     "eval \"$CMD\""])
def test_what_cannot_be_read_is_named(command: str) -> None:
    reading = read_command(command, W)
    assert reading.unread and not reading.targets, (command, reading.targets)


def test_find_that_deletes_or_runs_writes_below_its_starting_points() -> None:
    reading = read_command("find . -delete; find a b -name x -exec rm {} +; find c -name y; "
                           "find d -name '*.py' -exec grep -l x {} +; find e -execdir /bin/cat {} ;", W)
    assert [(t.path, t.tree) for t in reading.targets] == [("/w", True), ("/w/a", True), ("/w/b", True)]
    assert reading.unread  # what `-exec` runs is still the sandbox's to fence


def test_a_glob_is_matched_where_the_command_runs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    assert targets("rm *.py", str(tmp_path)) == [(str(tmp_path / "a.py"), False), (str(tmp_path / "b.py"), False)]
    assert read_command("rm *.md", str(tmp_path)).unread


def test_codex_apply_patch_through_the_shell_reads_the_patch() -> None:
    command = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+rm -rf x\n"
               "*** Add File: claims/x.yml\n+h\n*** End Patch\nEOF")
    assert targets(command) == [("/w/src/a.py", False), ("/w/claims/x.yml", False)]


def test_git_apply_reads_the_patch_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "fix.patch").write_text("diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n"
                                        "@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/claims/x.yml\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    assert targets("git apply ../fix.patch", str(sub)) == [(str(tmp_path / "src/a.py"), False),
                                                            (str(tmp_path / "claims/x.yml"), False)]
    assert targets("git apply --check ../fix.patch", str(sub)) == []


@pytest.mark.parametrize("command", [
    "cat <<E\\OF\nx\nEOF\necho hi > claims/x.yml",       # the delimiter is EOF, quote removed
    "cat <<E\"OF\"\nx\nEOF\necho hi > claims/x.yml",
    "cat <<'EOF'x\nx\nEOFx\necho hi > claims/x.yml",     # the delimiter is EOFx
    "cat << EOF-1\nx\nEOF-1\necho hi > claims/x.yml",
    "echo \"<<EOF\"\necho hi > claims/x.yml",            # quoted: no here-document at all
    "echo x # <<EOF\necho hi > claims/x.yml",            # a comment
    "echo ${v:-<<EOF}\necho hi > claims/x.yml",          # a parameter expansion's text
    "(( y = 1<<EOF ))\necho hi > claims/x.yml",          # an arithmetic shift
    "echo $((1<<EOF))\necho hi > claims/x.yml",
    "a[1<<EOF]=3\necho hi > claims/x.yml",
    "echo `cat <<EOF`\necho hi > claims/x.yml",
    "cat <<EOF\nx\n EOF\nEOF \necho hi > claims/x.yml",  # no exact `EOF` line: read as commands (may find more)
    "cat <<EOF\nx\n",                                     # no end line
])
def test_the_lines_after_a_here_document_are_read_as_the_shell_reads_them(command: str) -> None:
    """Only what the shell takes as a here-document's body is left out; every command after it is read."""
    found = targets(command)
    assert ("/w/claims/x.yml", False) in found or "claims" not in command, found


def test_a_here_document_ends_where_the_shell_ends_it() -> None:
    assert targets("cat <<-EOF > f\n\trm -rf x\n\t\tEOF\necho a > g") == [("/w/f", False), ("/w/g", False)]
    assert targets("git commit -F- <<'EOF'\nrm a > b\nEOF") == []
    assert targets("git commit -m \"$(cat <<'EOF'\nfix: a > b\n\nEOF\n)\" && echo x > c") == [("/w/c", False)]


def test_a_here_document_fed_to_a_shell_is_read_as_commands() -> None:
    assert targets("bash <<'EOF'\necho hi > claims/x.yml\nEOF") == [("/w/claims/x.yml", False)]
    assert targets("cd sub && sh -s <<EOF\necho hi > x\nEOF").count(("/w/x", False)) == 0


@pytest.mark.parametrize("command", [
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n EOF\n+x\n*** Add File: claims/x.yml\n+h\n"
    "*** End Patch\nEOF\n",
    "apply_patch <<'EOF'\n*** Begin Patch\n  *** Add File: claims/x.yml\n+h\n*** End Patch\nEOF\n",
    "echo '*** Begin Patch\n*** Add File: claims/x.yml\n+h\n*** End Patch' | apply_patch",
])
def test_every_patch_line_of_an_apply_patch_command_is_read(command: str) -> None:
    assert ("/w/claims/x.yml", False) in targets(command)


def test_a_command_line_not_read_to_its_end_says_so() -> None:
    """Past 64 KiB of commands, or five shells deep, the reading is partial (the write decision refuses it)."""
    assert read_command("echo " + "a" * 70_000 + " > claims/x.yml", W).partial
    nested = "echo hi > claims/x.yml"
    for _ in range(6):
        nested = "sh -c " + shlex.quote(nested)
    assert read_command(nested, W).partial
    body = "x = 1\n" * 20_000  # a long file written through a here-document is read whole
    reading = read_command(f"cat > src/big.py <<'EOF'\n{body}EOF\n", W)
    assert not reading.partial and [t.path for t in reading.targets] == ["/w/src/big.py"]


@pytest.mark.parametrize(("command", "expected"), [
    ("cp -rT src eng/sub", [("/w/eng/sub", True)]),
    ("cp -a --no-target-directory src eng/sub", [("/w/eng/sub", True)]),
    ("cp -T a.md eng/b.md", [("/w/eng/b.md", False)]),
    ("mv -T src eng/sub", [("/w/eng/sub", True), ("/w/src", True)]),
    ("ln -sfT ../lib eng/sub", [("/w/eng/sub", False)]),
    ("mv src eng/", [("/w/eng/src", True), ("/w/src", True)]),  # a folder moved is moved whole, no -r needed
])
def test_no_target_directory_writes_the_destination_itself(tmp_path: Path, command: str,
                                                           expected: list[tuple[str, bool]]) -> None:
    """`-T` (`--no-target-directory`): the last operand is what is written, even an existing folder (`cp -rT src
    eng/sub` copies src's files into eng/sub, overwriting a file of it a lock holds), never `eng/sub/src`; and a
    folder moved writes its whole new place (a lock may hold a file there not yet made)."""
    for folder in ("src", "eng/sub"):
        (tmp_path / folder).mkdir(parents=True)
    found = [(path.replace(str(tmp_path), "/w"), tree) for path, tree in targets(command, str(tmp_path))]
    assert found == expected

"""Programs whose own command line says what they write (SPEC 21.3): archivers (`zip`, `7z`, `tar`, `unzip`), `awk`'s
output redirections and the commands it runs, and a protocol file named in an interpreter's inline code."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def targets(command: str) -> set[tuple[str, bool]]:
    return {(t.path, t.tree) for t in read_command(command, W).targets}


@pytest.mark.parametrize(("command", "expected"), [
    ("zip -r claims/a.zip notes", {("/w/claims/a.zip", False)}),
    ("zip -q -9 claims/a notes/x", {("/w/claims/a.zip", False)}),
    ("zip -r -b /tmp claims/a.zip notes -x '*.pyc'", {("/w/claims/a.zip", False), ("/tmp", True)}),
    ("7z a claims/a.7z notes", {("/w/claims/a.7z", False)}),
    ("7za a -tzip claims/a.zip notes", {("/w/claims/a.zip", False)}),
    ("7z x a.7z -oclaims", {("/w/claims", True)}),
    ("tar -cf claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("tar -czf claims/a.tgz notes", {("/w/claims/a.tgz", False)}),
    ("tar cvf claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("tar --create --file=claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("tar -c --file claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("tar -rf claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("tar -xf a.tar -C claims", {("/w/claims", True)}),
    ("tar xzf a.tgz --directory=claims", {("/w/claims", True)}),
    ("unzip a.zip -d claims", {("/w/claims", True)}),
    ("unzip -o a.zip -dclaims", {("/w/claims", True)}),
])
def test_an_archiver_writes_what_its_command_line_names(command: str, expected: set[tuple[str, bool]]) -> None:
    assert targets(command) == expected


@pytest.mark.parametrize("command", ["tar -tf a.tar", "tar -cf - notes | gzip -c > /tmp/a.tgz", "unzip -l a.zip",
                                     "tar -xOf a.tar notes/x", "7z l a.7z", "zip -sf a.zip", "unzip -p a.zip x"])
def test_an_archiver_that_only_lists_or_prints_writes_nothing_here(command: str) -> None:
    assert {p for p, _tree in targets(command)} <= {"/tmp/a.tgz"}


@pytest.mark.parametrize(("command", "expected"), [
    ("awk '{print > \"claims/a.yml\"}' notes/x", "/w/claims/a.yml"),
    ("awk '{print $1 >> \"claims/a.yml\"}' notes/x", "/w/claims/a.yml"),
    ("gawk 'BEGIN { printf \"%s\", 1 > \"claims/a.yml\" }'", "/w/claims/a.yml"),
    ("mawk -F: '{print | \"tee claims/a.yml\"}' x", "/w/claims/a.yml"),
    ("nawk 'BEGIN { system(\"rm -rf claims/a.yml\") }'", "/w/claims/a.yml"),
    ("awk 'BEGIN { while ((\"rm claims/a.yml\" | getline l) > 0) print l }'", "/w/claims/a.yml"),
    ("gawk -i inplace '{sub(/a/,\"b\")}1' claims/a.yml", "/w/claims/a.yml"),
    ("awk -v x=1 -- '{print > \"claims/a.yml\"}'", "/w/claims/a.yml"),
])
def test_what_an_awk_program_writes_is_read(command: str, expected: str) -> None:
    assert expected in {p for p, _tree in targets(command)}


@pytest.mark.parametrize("command", [
    "awk '$1 > 3 {print $2}' notes/x",
    "awk '{print ($1 > \"m\") ? \"y\" : \"n\"}' notes/x",
    "awk -F, '{print $1}' claims/x.yml",
    "awk '{print > $1\".txt\"}' notes/x",
])
def test_an_awk_program_that_writes_no_named_file_names_none(command: str) -> None:
    assert targets(command) == set()


@pytest.mark.parametrize("command", [
    "python -c \"open('claims/a.yml','w').write('x')\"",
    "python3 -c 'import os; os.remove(\"claims/a.yml\")'",
    "python3 -c 'import shutil; shutil.rmtree(\"/w/claims\")'",
    "perl -e 'unlink \"claims/a.yml\"'",
    "node -e \"require('fs').writeFileSync('claims/a.yml', 'x')\"",
    "ruby -e 'File.write(\"claims/a.yml\", \"x\")'",
    "python -c \"import pathlib; pathlib.Path('BRAIN-INDEX.md').write_text('')\"",
    "python -c \"open('.brain/x','a')\"",
    "ruby -e 'File.delete(\"claims/a.yml\")'", "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"claims\")'",
    "ruby -e 'File.open \"claims/a.yml\", \"w\"'",
])
def test_inline_code_writing_a_protocol_file_it_names_is_refused(command: str) -> None:
    reading = read_command(command, W)
    assert any(p.startswith(("/w/claims", "/w/BRAIN-INDEX.md", "/w/.brain")) for p in
               (t.path for t in reading.targets)), reading.targets


@pytest.mark.parametrize("command", [
    "python -c \"import yaml; print(open('claims/x.yml').read())\"",
    "python3 -c 'import json,sys; print(json.load(sys.stdin))' < claims/x.yml",
    "perl -ne 'print if /status/' claims/x.yml",
    "node -e \"console.log(require('fs').readFileSync('claims/x.yml', 'utf8'))\"",
    "python -c \"open('notes/a.md','w').write('x')\"",
    "ruby -e 'puts File.read(\"claims/x.yml\")'", "ruby -e 'File.open \"claims/x.yml\" do |f| puts f.read end'",
])
def test_inline_code_that_only_reads_protocol_files_names_no_target(command: str) -> None:
    assert targets(command) == set()


@pytest.mark.parametrize("command", [
    "tar xf a.tar", "tar -xzf a.tgz", "tar --extract -f a.tar", "tar -x -f a.tar notes/x", "tar --get --file=a.tar",
    "gtar xvzf a.tgz", "bsdtar -x -f a.tar", "bsdtar -xf a.zip", "unzip a.zip", "unzip -o -q a.zip notes/x",
    "7z x a.7z", "7z e -y a.7z", "cpio -i < a.cpio", "cpio -idmv < a.cpio", "cpio --extract -F a.cpio",
])
def test_an_extraction_without_a_folder_writes_below_the_one_it_runs_in(command: str) -> None:
    assert targets(command) == {("/w", True)}
    assert targets(f"cd notes && {command}") == {("/w/notes", True)}


@pytest.mark.parametrize(("command", "expected"), [
    ("cpio -i -D claims < a.cpio", {("/w/claims", True)}),
    ("cpio -id --directory=claims < a.cpio", {("/w/claims", True)}),
    ("cpio -o -F claims/a.cpio < list", {("/w/claims/a.cpio", False)}),
    ("cpio -o --file=claims/a.cpio < list", {("/w/claims/a.cpio", False)}),
    ("cpio -o -O claims/a.cpio < list", {("/w/claims/a.cpio", False)}),
    ("find notes | cpio -pdm claims", {("/w/claims", True)}),
])
def test_cpio_writes_what_its_command_line_names(command: str, expected: set[tuple[str, bool]]) -> None:
    assert targets(command) == expected


@pytest.mark.parametrize("command", ["tar tf a.tar", "tar -tzvf a.tgz", "tar --list -f a.tar", "bsdtar -tf a.tar",
                                     "unzip -l a.zip", "unzip -t a.zip", "unzip -Z a.zip", "unzip -p a.zip x",
                                     "7z l a.7z", "7z t a.7z", "cpio -t < a.cpio", "cpio -it < a.cpio",
                                     "cpio -o < list > /dev/null", "tar -xOf a.tar x", "tar -x --to-stdout -f a"])
def test_listing_or_printing_an_archive_writes_nothing(command: str) -> None:
    assert targets(command) == set()


@pytest.mark.parametrize("command", ["awk -f prog.awk notes/x", "gawk --file=prog.awk notes/x",
                                     "awk -F: -f prog.awk notes/x", "awk --file prog.awk notes/x"])
def test_an_awk_program_file_is_unread(command: str) -> None:
    reading = read_command(command, W)
    assert not reading.targets and any("program file" in why for why in reading.unread), reading.unread

"""The files a `python -m MODULE` command line names as written (SPEC 21.3): `json.tool`'s output file, `zipfile` and
`tarfile` archives and extraction folders, `gzip`'s output, a new `venv`, and `pip`'s target folders."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def targets(command: str) -> set[tuple[str, bool]]:
    return {(t.path, t.tree) for t in read_command(command, W).targets}


@pytest.mark.parametrize(("command", "expected"), [
    ("python -m json.tool notes/a.json claims/a.yml", {("/w/claims/a.yml", False)}),
    ("python3 -m json.tool --sort-keys --indent 2 notes/a.json claims/a.yml", {("/w/claims/a.yml", False)}),
    ("python3 -mjson.tool notes/a.json claims/a.yml", {("/w/claims/a.yml", False)}),
    ("python3 -u -m json.tool --outfile claims/a.yml notes/a.json", {("/w/claims/a.yml", False)}),
    ("python -m zipfile -c claims/a.zip notes", {("/w/claims/a.zip", False)}),
    ("python -m zipfile --create claims/a.zip notes/a notes/b", {("/w/claims/a.zip", False)}),
    ("python -m zipfile -e a.zip claims", {("/w/claims", True)}),
    ("python -m tarfile -c claims/a.tar notes", {("/w/claims/a.tar", False)}),
    ("python -m tarfile -v --extract a.tar claims", {("/w/claims", True)}),
    ("python -m tarfile -e a.tar", {("/w", True)}),
    ("python -m gzip claims/a.yml", {("/w/claims/a.yml.gz", False)}),
    ("python -m gzip -d claims/a.yml.gz", {("/w/claims/a.yml", False)}),
    ("python -m venv claims", {("/w/claims", True)}),
    ("python3 -m venv --prompt x --clear .brain/env notes/env", {("/w/.brain/env", True), ("/w/notes/env", True)}),
    ("python -m pip install --target claims x", {("/w/claims", True)}),
    ("python -m pip install -t claims -r req.txt", {("/w/claims", True)}),
    ("python -m pip install --prefix=.brain x", {("/w/.brain", True)}),
    ("python -m pip download -d claims x", {("/w/claims", True)}),
    ("python -m pip wheel -w claims .", {("/w/claims", True)}),
    ("pip install --target=claims x", {("/w/claims", True)}),
    ("pip3 install -t claims x", {("/w/claims", True)}),
])
def test_a_python_module_writes_what_its_command_line_names(command: str, expected: set[tuple[str, bool]]) -> None:
    assert targets(command) == expected


@pytest.mark.parametrize("command", ["python -m json.tool notes/a.json", "python3 -m json.tool < claims/a.json",
                                     "python -m zipfile -l a.zip", "python -m zipfile -t a.zip",
                                     "python -m tarfile -l a.tar", "python -m gzip < a > /dev/null",
                                     "python -m http.server 8000", "python -m pytest tests", "pip list",
                                     "python -m pip show x", "python script.py -m json.tool a b",
                                     "python -c 'print(1)' -m json.tool a b"])
def test_a_python_module_that_writes_no_named_file_names_none(command: str) -> None:
    assert targets(command) == set()

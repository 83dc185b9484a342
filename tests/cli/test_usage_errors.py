"""SPEC 13: an unknown flag or a word too many is exit 64 "with usage": the usage of the command it was given to.

argparse reports what a command did not recognise from the top-level parser, so `bsi claim list --frob` printed
`usage: bsi [-h] … COMMAND ...`, which says nothing of what `claim list` takes. The usage shown is now the one of
the command that refused the word; an unknown global flag before the command still gets `bsi`'s own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import git, head, run_bsi

CASES = [
    (("claim", "list", "--frob"), "--frob", "usage: bsi claim list "),
    (("claim", "list", "extra"), "extra", "usage: bsi claim list "),
    (("watchdog", "extra"), "extra", "usage: bsi watchdog "),
    (("gate", "status", "sess-20261129-1000-a", "two"), "two", "usage: bsi gate status "),
    (("lock", "acquire", "src/a.py", "sess-20261129-1000-a", "30", "more"), "more", "usage: bsi lock acquire "),
    (("claim", "open", "--scope", "src/", "--scpoe", "docs/"), "--scpoe docs/", "usage: bsi claim open "),
    (("--frob", "claim", "list"), "--frob", "usage: bsi [-h]"),
]


@pytest.mark.parametrize(("args", "word", "usage"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_an_unknown_word_shows_the_usage_of_the_command_given_it(brain: Path, args: tuple[str, ...], word: str,
                                                                 usage: str) -> None:
    before = head(brain)
    run = run_bsi(*args, brain=brain)
    assert run.code == 64 and run.out == "", run
    first, *rest = run.err.splitlines()
    assert first == f"bsi: unrecognized arguments: {word}", run.err
    assert rest and rest[0].startswith(f"bsi: {usage}"), run.err
    assert head(brain) == before and git(brain, "status", "--porcelain") == ""


def test_with_json_the_error_document_carries_the_same_usage(brain: Path) -> None:
    run = run_bsi("--json", "claim", "list", "--frob", brain=brain)
    assert run.code == 64
    assert "usage: bsi claim list " in run.json()["error"] and run.json()["exit"] == 64

"""An argv list in brain-compose.yml (`notify.command`, `launch.command`) holding a word YAML reads as no text
(`true`, `off`, `null`, a list): the refusal names the element and says to quote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi


@pytest.mark.parametrize(("element", "said"), [("true", '"true"'), ("false", '"false"'), ("null", '"null"'),
                                               ("[a, b]", "list")])
def test_notify_names_the_element_and_says_to_quote_it(brain: Path, element: str, said: str) -> None:
    """Before: `notify: {command: [true, …]}` was refused (65) with "expected `off` or `command: [program, arg,
    …]` (an argv list…)": the user had written an argv list and was told nothing of the unquoted word."""
    (brain / "brain-compose.yml").write_text(f'notify:\n  command: [{element}, "{{kind}}"]\n', encoding="utf-8")
    run = run_bsi("notify", "test", brain=brain)
    assert run.code == 65 and len(run.err.strip().splitlines()) == 1, run.err
    assert "notify.command" in run.err and "element 1" in run.err and said in run.err, run.err
    if element != "[a, b]":
        assert "quote it" in run.err


def test_launch_names_the_element_and_says_to_quote_it(brain: Path) -> None:
    """`launch.command: [claude, true]` said only "every element must be a string"."""
    sess = ok(run_bsi("claim", "open", "--scope", "wiki/", brain=brain))
    (brain / "brain-compose.yml").write_text('launch:\n  command: [claude, true]\n', encoding="utf-8")
    run = run_bsi("launch", sess, "--dry-run", brain=brain)
    assert run.code == 65 and len(run.err.strip().splitlines()) == 1, run.err
    assert "launch.command" in run.err and "element 2" in run.err and 'quote it ("true")' in run.err, run.err

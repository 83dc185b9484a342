"""An instance given for a claim (SPEC 4: `brain_name@machine`): the spellings accepted, the ones refused
(exit 65, nothing written), asked of `Brain` in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import run_bsi
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import open_in, refused

ACCEPTED = ["prod@desktop", "cerveau-é@vps.example.org", "my_brain@host-2", "My Brain@laptop"]
REFUSED = [" prod@desktop", "prod@desk/../x", "prod@desk\\x", "prod", "@desktop", "prod@", "a@b@c",
           "prod@desk\x1b[31m", "prod@desk\u202e", "prod@desk\u200b", ""]


@pytest.mark.parametrize("instance", REFUSED)
def test_instance_not_brain_name_at_machine_refused(brain: Path, instance: str) -> None:
    """SPEC 4: an instance is `brain_name@machine`; anything else given for it is refused (65), nothing written."""
    files = tree_bytes(brain)
    error = refused(lambda: open_in(brain, "a/", instance=instance), 65)
    assert "instance" in str(error) and "\n" not in str(error)
    assert tree_bytes(brain) == files


@pytest.mark.parametrize("instance", ACCEPTED)
def test_instance_brain_name_at_machine_accepted(brain: Path, instance: str) -> None:
    sess = open_in(brain, "a/", instance=instance)
    assert load_claim(brain, sess)["instance"] == instance


@pytest.mark.parametrize("instance", ["", "foo/../x"])
def test_bsi_instance_refused_in_one_line(brain: Path, instance: str) -> None:
    """`bsi claim open --instance ''` is refused too, not taken as "no instance given"."""
    files = tree_bytes(brain)
    run = run_bsi("claim", "open", "--scope", "a/", "--instance", instance, brain=brain)
    assert run.code == 65 and run.out == "" and run.err.count("\n") == 1 and "instance" in run.err, run
    assert tree_bytes(brain) == files

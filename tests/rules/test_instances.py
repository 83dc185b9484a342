"""An instance given for a claim (SPEC 4: `brain_name@machine`): the spellings accepted, the ones refused
(exit 65, nothing written), asked of `Brain` in process."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.bsi import run_bsi
from tests.conftest import load_claim, signal_docs, tree_bytes
from tests.rules.facade import open_in, refused

ACCEPTED = ["prod@desktop", "cerveau-é@vps.example.org", "my_brain@host-2", "My Brain@laptop"]
REFUSED = [" prod@desktop", "prod@desk/../x", "prod@desk\\x", "prod", "@desktop", "prod@", "a@b@c",
           "prod@desk\x1b[31m", "prod@desk\u202e", "prod@desk\u200b", "",
           # a machine part no signal sender can hold (SPEC 7: one word of letters, digits and `._:+-`)
           "prod@my box", "prod@Ada's-Mac", "prod@bureau-é"]


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


@pytest.mark.parametrize("brain_name", ['"me@work"', '"team/notes"', "[a, b]", "{a: 1}", '"  "'])
def test_default_instance_of_an_odd_brain_name_still_opens(brain: Path, brain_name: str) -> None:
    """SPEC 4 and 12: the default instance is `brain_name@machine`; a `brain_name` that cannot stand before the
    `@` (an `@` or `/` in it) or that is no name at all (a list, a mapping, blanks) never makes every open
    refused for an `--instance` nobody gave: the default reads as an instance, and no Python repr is written."""
    (brain / "brain-compose.yml").write_text(f"brain_name: {brain_name}\n", encoding="utf-8")
    run = run_bsi("claim", "open", "--scope", "a/", brain=brain)
    assert run.code == 0, run
    instance = load_claim(brain, run.out.strip())["instance"]
    name, _, machine = instance.partition("@")
    assert name and machine and "@" not in machine and "/" not in instance and "[" not in instance
    assert "{" not in instance and name == name.strip()


def test_default_instance_of_a_brain_folder_named_with_an_at(tmp_path: Path) -> None:
    """A brain whose folder is `me@work` (no brain_name) opens claims: its default instance reads as one."""
    root = tmp_path / "me@work"
    assert run_bsi("init", str(root), cwd=tmp_path).code == 0
    run = run_bsi("claim", "open", "--scope", "a/", brain=root)
    assert run.code == 0, run
    name, _, machine = load_claim(root, run.out.strip())["instance"].partition("@")
    assert name.startswith("me") and machine and "@" not in machine


@pytest.mark.parametrize(("hostname", "machine"), [("my box", "my-box"), ("Ada's MacBook Pro", "Ada-s-MacBook-Pro"),
                                                   ("bureau-é", "bureau"), (" ", "localhost"), ("vps.example.org",
                                                                                              "vps.example.org")])
def test_a_host_name_a_sender_cannot_hold_gives_a_default_instance_that_sends(
        brain: Path, monkeypatch: pytest.MonkeyPatch, hostname: str, machine: str) -> None:
    """SPEC 4 and 7: the default instance is `brain_name@hostname` and a human's signals are sent from it. Before,
    a host name with a space (`Ada's MacBook Pro`, as macOS names machines) was kept as it is: every signal sent
    without `--from`, and the BLOCKED_ON a refused open sends, was refused (65) for a sender nobody gave."""
    real = os.uname()
    monkeypatch.setattr(os, "uname", lambda: SimpleNamespace(sysname=real.sysname, nodename=hostname,
                                                              release=real.release, version=real.version,
                                                              machine=real.machine))
    sent = run_bsi("signal", "send", "--to", "prod@desktop", "--type", "INFO", "hello", brain=brain)
    assert sent.code == 0, sent
    assert signal_docs(brain)[0]["from"] == f"{brain.name}@{machine}"
    opened = run_bsi("claim", "open", "--scope", "a/", brain=brain)
    assert load_claim(brain, opened.out.strip())["instance"] == f"{brain.name}@{machine}"

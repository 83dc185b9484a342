"""The last door reads every staged file under the one spelling the brain names it by (SPEC 21.2, 5.3, 22).

`write_path.apply` compares each claim file a write leaves with the brain's claim at that path: a human's move
refuses in an agent's process, a new claim that meets a holder refuses. A path spelled otherwise — `claims/./X.yml`,
`./claims/X.yml`, `claims//X.yml`, `claims/../claims/X.yml` — is the same file on disk, but was no claim of the brain
to the door: an agent's Python lifted a pause through it. Such a path is refused (exit 65), nothing written.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from brain_tui.core import write_path
from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.records.changes import ChangeSet
from tests.bsi import NOW
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import at, open_in
from tests.rules.test_human_lifts import AGENT

SPELLINGS = ("claims/./{}.yml", "./claims/{}.yml", "claims//{}.yml", "claims/../claims/{}.yml", "/claims/{}.yml")


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_pause_lifted_under_another_spelling_of_its_file_is_refused(brain: Path, spelling: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sess = open_in(brain, "src/", story="work")
    at(brain).gates.pause(sess, "hold")
    text = (brain / "claims" / f"{sess}.yml").read_text(encoding="utf-8")
    lifted = re.sub(r"(?ms)^gate_history:.*", "", re.sub(r"(?m)^(paused_by|paused_from): .*\n", "",
                                                          re.sub(r"(?m)^status: .*$", "status: open", text)))
    before = tree_bytes(brain)
    for name, value in AGENT.items():
        monkeypatch.setenv(name, value)
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), "bsi: by hand")
    cs.put_text(spelling.format(sess), lifted)
    with pytest.raises(BsiError) as refused:
        write_path.apply(b, cs)
    assert refused.value.exit_code == 65, refused.value.message
    assert tree_bytes(brain) == before and load_claim(brain, sess)["status"] == "paused"


def test_a_new_claim_under_another_spelling_of_claims_is_refused(brain: Path) -> None:
    holder = open_in(brain, "src/", story="first")
    text = (brain / "claims" / f"{holder}.yml").read_text(encoding="utf-8").replace(holder, "sess-20261129-1000-twin")
    before = tree_bytes(brain)
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), "bsi: by hand")
    cs.put_text("./claims/sess-20261129-1000-twin.yml", text)
    with pytest.raises(BsiError):
        write_path.apply(b, cs)
    assert tree_bytes(brain) == before


def test_two_claims_whose_names_differ_in_case_alone_are_each_written(brain: Path) -> None:
    # a case-sensitive disk holds both (an old script's IDs): each is its own claim, written under its own name
    import subprocess

    for name, scope in (("sess-20261129-0900-Old", "src/"), ("sess-20261129-0900-old", "docs/")):
        (brain / "claims" / f"{name}.yml").write_text(
            f"sess_id: {name}\ntype: solo\ninstance: brain@vm\nscope: {scope}\nstatus: open\n"
            f"opened_at: '2026-11-29T09:00:00+00:00'\nttl: 2h\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=brain, check=True)
    subprocess.run(["git", "commit", "-qm", "old claims"], cwd=brain, check=True)
    for name in ("sess-20261129-0900-Old", "sess-20261129-0900-old"):
        at(brain).renew_claim(name, None)
        assert load_claim(brain, name)["expires_at"]

"""An agent on the signal bus (SPEC 7, 21.4): who an acknowledgement names, and who a signal is from.

`delivered_by` says who acknowledged a signal: an agent's acknowledgement is signed by the claim it acknowledges
for, never by a name its shell chooses (`--by human:ada` would record a human's acknowledgement that no human made).
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.cli.test_authority import ALICE, BOB, agent_env
from tests.conftest import signal_docs, tree_bytes


def opened(brain: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """A claim opened at the machine's clock (an agent judges its claims at it)."""
    return ok(run_bsi("claim", "open", *args, brain=brain, env=env, now=None))


def test_an_agents_acknowledgement_names_no_one_else(brain: Path) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", env=agent_env(BOB))
    mine = opened(brain, "--scope", "fe/", "--type", "pilote", env=agent_env(ALICE))
    other = opened(brain, "--scope", "ge/", "--type", "pilote", env=agent_env(ALICE))
    to_me = ok(run_bsi("signal", "send", "--from", pilot, "--to", mine, "--type", "INFO", "go", brain=brain,
                       env=agent_env(BOB), now=None))
    before = tree_bytes(brain)
    for by in ("human:ada", pilot, other, "brain@desktop"):
        run = run_bsi("--json", "signal", "ack", to_me, "--by", by, brain=brain, env=agent_env(ALICE), now=None)
        assert run.code == 77 and run.json()["kind"] == "not_yours", (by, run)
        assert f"signed by the claim it acknowledges for ({mine})" in run.err, run.err
    assert tree_bytes(brain) == before
    ok(run_bsi("signal", "ack", to_me, "--by", mine, brain=brain, env=agent_env(ALICE), now=None))
    (doc,) = [s for s in signal_docs(brain) if s["sig_id"] == to_me]
    assert (doc["state"], doc["delivered_by"]) == ("delivered", mine)


def test_a_human_still_names_who_acknowledged(brain: Path) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote")
    sig = ok(run_bsi("signal", "send", "--from", pilot, "--to", "human:ada", "--type", "INFO", "fyi", brain=brain,
                     now=None))
    ok(run_bsi("signal", "ack", sig, "--by", "human:ada", brain=brain, now=None))
    assert [s["delivered_by"] for s in signal_docs(brain) if s["sig_id"] == sig] == ["human:ada"]


def test_a_sender_is_recorded_as_the_claim_it_names(brain: Path) -> None:
    """`--from ' sess-…'` is the claim `sess-…` (the agent's check reads it so): the file names it without the
    spaces, `parent` resolves through it, and the same signal sent again is not written twice."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote")
    mine = opened(brain, "--scope", "be/x.py", "--parent", pilot, "--satellite-type", "code",
                  env=agent_env(ALICE, BSI_SESSION=pilot))
    first = ok(run_bsi("signal", "send", "--from", f" {mine} ", "--to", "parent", "--type", "BLOCKED_ON", "schema?",
                       brain=brain, env=agent_env(ALICE), now=None))
    (doc,) = [s for s in signal_docs(brain) if s["sig_id"] == first]
    assert (doc["from"], doc["to"]) == (mine, pilot)
    again = run_bsi("signal", "send", "--from", mine, "--to", pilot, "--type", "BLOCKED_ON", "schema?", brain=brain,
                    env=agent_env(ALICE), now=None)
    assert again.code == 0 and again.out == "", again

"""Brain text in `bsi`'s text output on stdout (SPEC 13, 15): inert and visible, whichever command prints it.

Another session's words (a claim's instance, story, a signal's payload) may hold terminal escapes, bidi
overrides and zero-width characters. Without `--json`, every line `bsi` prints shows them as ``⟨ESC⟩``-style
placeholders: never sent to the terminal, never silently dropped or blanked either.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.conftest import claim_file

HIDDEN = "\x1b\x07\x9b\u202e\u200b\u2066"


def _open(brain: Path, *args: str) -> str:
    return ok(run_bsi("claim", "open", *args, brain=brain)).strip()


def test_check_scope_names_a_hand_written_instance_inert(brain: Path) -> None:
    sess = _open(brain, "--scope", "wiki/")
    path = claim_file(brain, sess)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f"instance: {text.split('instance: ')[1].splitlines()[0]}",
                                 'instance: "x\\e]0;owned\\a\\e[2J\\u202e@vm"'), encoding="utf-8")
    run = run_bsi("check-scope", "wiki/page.md", brain=brain)
    assert run.code == 10, run.err
    assert not any(ch in run.out + run.err for ch in HIDDEN), repr(run.out)
    assert "x⟨ESC⟩]0;owned⟨BEL⟩⟨ESC⟩[2J⟨U+202E⟩@vm" in run.out


def test_claim_and_signal_lists_show_bidi_and_zero_width_characters_visibly(brain: Path) -> None:
    _open(brain, "--scope", "src/", "--story", "fix \u202eevil\u202c \u200bhidden")
    ok(run_bsi("signal", "send", "--to", "pilote", "--type", "INFO", "pay \u2066load\u2069 \x1b[5m", brain=brain))
    claims = ok(run_bsi("claim", "list", brain=brain))
    assert not any(ch in claims for ch in HIDDEN), repr(claims)
    assert "fix ⟨U+202E⟩evil⟨U+202C⟩ ⟨U+200B⟩hidden" in claims
    signals = ok(run_bsi("signal", "list", brain=brain))
    assert not any(ch in signals for ch in HIDDEN), repr(signals)
    assert "pay ⟨U+2066⟩load⟨U+2069⟩ ⟨ESC⟩[5m" in signals


def test_very_long_brain_text_is_cut_with_an_ellipsis_in_text_output(brain: Path) -> None:
    sess = _open(brain, "--scope", "wiki/")
    path = claim_file(brain, sess)
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(f"instance: {'i' * 5000}@vm" if line.startswith("instance:") else line
                              for line in lines) + "\n", encoding="utf-8")
    (brain / "signals" / "sig-20261129-100000-long.yml").write_text(
        f"sig_id: sig-20261129-100000-long\nfrom: a\nto: pilote\ntype: {'T' * 5000}\npayload: p\nstate: pending\n"
        "created_at: '2026-11-29T10:00:00+00:00'\n", encoding="utf-8")
    run = run_bsi("check-scope", "wiki/", brain=brain)
    assert run.code == 10 and "i" * 200 not in run.out and "…" in run.out, run.out[:300]
    refused = run_bsi("claim", "open", "--scope", "wiki/", brain=brain)
    assert refused.code == 10 and "i" * 200 not in refused.err and "…" in refused.err, refused.err[:300]
    signals = ok(run_bsi("signal", "list", brain=brain))
    assert "T" * 200 not in signals and "T…" in signals
    assert max(len(line) for line in signals.splitlines()) < 300


def test_gate_status_cuts_a_hand_written_gate_event_and_author(brain: Path) -> None:
    sess = _open(brain, "--scope", "wiki/")
    path = claim_file(brain, sess)
    path.write_text(path.read_text(encoding="utf-8") + "gate_history:\n"
                    f"  - {{ts: '2026-11-29T10:00:00+00:00', event: {'E' * 5000}, by: {'b' * 5000}, message: m}}\n",
                    encoding="utf-8")
    shown = ok(run_bsi("gate", "status", sess, brain=brain))
    assert "E" * 200 not in shown and "b" * 200 not in shown and "…" in shown, shown[:300]


def test_lock_check_cuts_a_hand_written_holder(brain: Path) -> None:
    (brain / "locks" / "docs%2Fa.md.yml").write_text(
        f"file: docs/a.md\nholder: sess-{'h' * 5000}\ngeneration: 1\nclaimed_at: '2026-11-29T10:00:00+00:00'\n"
        "expires_at: '2026-11-29T11:00:00+00:00'\nttl_min: 60\n", encoding="utf-8")
    run = run_bsi("lock", "check", "docs/a.md", brain=brain)
    assert run.code == 1 and "h" * 200 not in run.out and "…" in run.out, run.out[:300]

"""`bsi notify test`: the `notify:` command run once for a made-up item (exit codes, JSON, the argv)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.bsi import run_bsi

RECORDER = "import json, sys; open(sys.argv[1], 'w').write(json.dumps(sys.argv[2:]))"


def configure(brain: Path, notify: str) -> None:
    """Append a `notify:` key to the brain's brain-compose.yml."""
    with (brain / "brain-compose.yml").open("a", encoding="utf-8") as handle:
        handle.write("\nnotify: " + notify + "\n")


def test_the_command_runs_once_with_the_placeholders_filled(brain: Path, tmp_path: Path) -> None:
    out = tmp_path / "ran"
    configure(brain, json.dumps({"command": [sys.executable, "-c", RECORDER, str(out), "BSI: {kind}",
                                             "{summary}", "{key}"]}))
    run = run_bsi("--json", "notify", "test", brain=brain)
    assert run.code == 0, run.err
    assert run.json()["ok"] is True and run.json()["argv"][4:] == json.loads(out.read_text())
    kind, summary, key = json.loads(out.read_text())
    assert (kind, key) == ("BSI: test", "test") and "test notice" in summary
    assert not (brain / ".brain" / "notified.json").exists()  # a test is not an item told


def test_none_off_bad_and_failing_commands_exit_with_one_line(brain: Path, tmp_path: Path) -> None:
    none = run_bsi("notify", "test", brain=brain)
    assert none.code == 64 and "no notify command configured" in none.err and "Traceback" not in none.err
    configure(brain, "off")
    off = run_bsi("notify", "test", brain=brain)
    assert off.code == 64 and "notify is off" in off.err
    compose = (brain / "brain-compose.yml").read_text().replace("notify: off", "notify: 'notify-send {summary}'")
    (brain / "brain-compose.yml").write_text(compose)
    shell = run_bsi("notify", "test", brain=brain)
    assert shell.code == 65 and "argv list" in shell.err
    compose = compose.replace("notify: 'notify-send {summary}'", "notify: {command: [" + json.dumps(
        str(tmp_path / "missing")) + "]}")
    (brain / "brain-compose.yml").write_text(compose)
    failing = run_bsi("notify", "test", brain=brain)
    assert failing.code == 69 and "not found" in failing.err and len(failing.err.strip().splitlines()) == 1

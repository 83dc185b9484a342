"""An old closed claim stays findable once live reads skip it through the closed set."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import bsi_at, ok
from tests.reliability.harness import make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"
bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def test_verify_and_log_still_find_a_closed_claim(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "old"))
    ok(bsi(a, "claim", "close", sess, "--status", "ok"))
    live = ok(bsi(a, "claim", "open", "--scope", "docs/", "--slug", "now"))
    listed = json.loads(ok(bsi(a, "--json", "claim", "list")))
    assert (a / ".brain" / "closed-set.json").is_file()
    assert sess not in json.dumps(listed) and live in json.dumps(listed)
    messages = [e["message"] for e in json.loads(ok(bsi(a, "--json", "log", sess)))["entries"]]
    assert f"bsi: close claim {sess}" in messages
    assert bsi(a, "--json", "verify", sess).code == 0
    assert sess in json.dumps(json.loads(ok(bsi(a, "--json", "claim", "list", "--all"))))

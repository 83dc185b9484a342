"""A sync's cost follows the live claims (SPEC 22): settling a pending offline claim decodes no old closed claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records import formats, store
from tests.bsi import bsi_at
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"
OLD = "sess-20250901-0900-old"

bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def _old_closed_claim(clone: Path) -> None:
    (clone / "claims" / f"{OLD}.yml").write_text(
        f"sess_id: {OLD}\ntype: solo\ninstance: prod@laptop\nscope: wiki/old/\nstatus: closed\n"
        "opened_at: '2025-09-01T09:00:00+00:00'\nexpires_at: '2025-09-01T11:00:00+00:00'\n"
        "closed_at: '2025-09-01T10:00:00+00:00'\n", encoding="utf-8")
    git(clone, "add", "claims")
    git(clone, "commit", "--quiet", "-m", f"bsi: close claim {OLD}")


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The claim files decoded into claims (by path)."""
    seen: list[str] = []
    real_decode = formats.claim_from_mapping

    def decode(data: Any, rel_path: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(rel_path)
        return real_decode(data, rel_path, *args, **kwargs)

    monkeypatch.setattr(store, "claim_from_mapping", decode)
    return seen


def test_a_sync_settling_an_offline_claim_decodes_no_old_closed_claim(tmp_path: Path, decoded: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    _old_closed_claim(a)
    assert bsi(a, "sync").code == 0
    assert bsi(b, "sync").code == 0
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    assert bsi(b, "--offline", "claim", "open", "--scope", "notes/", "--slug", "off").code == 0
    git(b, "remote", "set-url", "origin", good)
    assert bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "on").code == 0
    for name, value in racer_env("tester").items():
        if name.startswith(("GIT_", "TZ", "LC_")):
            monkeypatch.setenv(name, value)
    decoded.clear()
    report = Brain(b, now=NOW).remote.sync()
    assert report.pushed and not report.lost
    assert f"claims/{OLD}.yml" not in decoded

"""A claim's TTL (SPEC 6.1): the spellings accepted and the expiry they give, the ones refused (exit 65,
nothing written), asked of `Brain` in process. tests/cli/test_claims.py keeps one `bsi` case of each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import open_in, refused

ACCEPTED = [("90m", "2026-11-29T11:30:00+00:00"), ("2h30m", "2026-11-29T12:30:00+00:00"),
            ("8h", "2026-11-29T18:00:00+00:00")]
REFUSED = ["0", "-1h", "9h", "abc", "8h1m", "0m",
           # minutes after hours count 0..59: `1h60m` is not a way to write 2h (SPEC 6.4 "like 2h30m")
           "1h60m", "2h90m"]


@pytest.mark.parametrize(("ttl", "expires"), ACCEPTED)
def test_ttl_accepted(brain: Path, ttl: str, expires: str) -> None:
    sess = open_in(brain, "a/", ttl=ttl)
    assert load_claim(brain, sess)["expires_at"] == expires


@pytest.mark.parametrize("ttl", REFUSED)
def test_ttl_refused_and_nothing_written(brain: Path, ttl: str) -> None:
    files = tree_bytes(brain)
    error = refused(lambda: open_in(brain, "a/", ttl=ttl), 65)
    assert "TTL" in str(error) and "\n" not in str(error)
    assert tree_bytes(brain) == files



@pytest.mark.parametrize("ttl", ["", "  "])
def test_an_empty_ttl_is_said_to_be_empty_not_too_long(ttl: str) -> None:
    from brain_tui.core.clock import parse_duration

    error = refused(lambda: parse_duration(ttl), 65)
    assert "empty" in str(error) and not str(error).endswith("at most 8h"), error

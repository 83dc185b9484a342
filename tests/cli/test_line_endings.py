"""A claim file written by hand with CRLF line endings or a byte-order mark keeps them when bsi edits it.

SPEC 6.1: changing one field changes only the lines of that field. A file saved on Windows (CRLF, often with a BOM)
must not have every line rewritten by a pause or a stale mark.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import git, ok, run_bsi

SESS = "sess-20260316-2100-crlf"
LINES = ["sess_id:          " + SESS, "type:             satellite", "scope:            crlf/",
         "status:           open", 'opened_at:        "2026-03-16T21:00"', "# a comment kept as written"]


def _plant(brain: Path, prefix: bytes) -> Path:
    path = brain / "claims" / f"{SESS}.yml"
    path.write_bytes(prefix + "\r\n".join(LINES).encode("utf-8") + b"\r\n")
    git(brain, "add", "claims")
    git(brain, "commit", "-qm", "hand-written claim")
    return path


def _check(brain: Path, path: Path, prefix: bytes) -> None:
    ok(run_bsi("gate", "pause", SESS, "hold", brain=brain, now="2026-03-16T21:30:00+00:00"))
    data = path.read_bytes()
    assert data.startswith(prefix + b"sess_id:"), data[:20]
    body = data[len(prefix):]
    assert body.count(b"\n") == body.count(b"\r\n"), body  # every line still ends with CRLF
    kept = body.decode("utf-8").split("\r\n")
    for line in LINES:
        if not line.startswith("status:"):
            assert line in kept, (line, kept)  # the untouched fields' lines, byte for byte
    assert "status: paused" in kept
    numstat = git(brain, "diff", "--numstat", "HEAD~1", "--", str(path.relative_to(brain)))
    assert numstat.split()[1] == "1", numstat  # one line removed: the status line


def test_a_crlf_claim_file_keeps_its_line_endings(brain: Path) -> None:
    _check(brain, _plant(brain, b""), b"")


def test_a_claim_file_with_a_bom_keeps_it(brain: Path) -> None:
    _check(brain, _plant(brain, b"\xef\xbb\xbf"), b"\xef\xbb\xbf")

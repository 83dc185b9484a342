"""Record `tests/fixtures/transcripts/claude-2.1.197.jsonl` again: one real Claude Code run in the e2e harness.

    python scripts/record_transcript.py [OUT]

Runs `tests/e2e/test_transcript.py` (the pinned Claude Code against the fake Messages API, in a demo
brain with the hooks installed) with `BSI_RECORD_TRANSCRIPT=OUT`: the transcript the client wrote
under its test HOME (`~/.claude/projects/…/<session>.jsonl`) is copied to OUT. It is a fake run:
nothing in it is secret.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "transcripts" / "claude-2.1.197.jsonl"


def main(argv: list[str]) -> int:
    """Run the recording test; exit with its code."""
    out = Path(argv[0]).resolve() if argv else DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "BSI_RECORD_TRANSCRIPT": str(out)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-n0", "-q",
                           "tests/e2e/test_transcript.py"], cwd=ROOT, env=env, check=False)
    if done.returncode == 0:
        print(f"recorded {out}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

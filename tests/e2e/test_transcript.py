"""The real Claude Code's transcript, named by its hooks, read back as the claim's peek and runway (issue 21).

With `BSI_RECORD_TRANSCRIPT=PATH` the transcript the client wrote is also copied to PATH: that is how
`tests/fixtures/transcripts/claude-2.1.197.jsonl` was recorded (`scripts/record_transcript.py`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from brain_tui.core.brain import Brain
from tests.e2e.client import Session
from tests.e2e.conftest import demo_claim
from tests.e2e.fake_api import DONE_TEXT, Text, ToolUse, bash

SATELLITE = "api-search"  # the demo claim's slug (`demo_claim`)
INSIDE = "brain-engine/api/routes.py"
SAID = "Paginated the search routes.\nThe tests still pass."
RECORD_ENV = "BSI_RECORD_TRANSCRIPT"


def test_the_hooks_name_the_transcript_and_the_peek_reads_it(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    satellite = demo_claim(e2e_brain, SATELLITE)
    target = e2e_brain / INSIDE
    script = [ToolUse("Read", {"file_path": str(target)}),
              ToolUse("Write", {"file_path": str(target), "content": target.read_text() + "# paginated\n"}),
              bash("ls brain-engine/api"),
              Text(SAID)]

    run = run_claude(e2e_brain, "Paginate the search routes.", script, env={"BSI_SESSION": satellite})

    assert run.code == 0, run.transcript()
    live = Brain(e2e_brain).read_liveness()[satellite]
    assert live.transcript is not None and live.agent == "claude", live
    transcript = Path(live.transcript)
    assert transcript.name == f"{run.session_id}.jsonl" and ".claude/projects" in transcript.as_posix()
    peek = Brain(e2e_brain).peek(satellite)
    assert peek is not None
    # The Stop hook held the agent once (its claim is still open): its last answer is the one after that.
    assert peek.text == (DONE_TEXT,)
    assert peek.tool is not None and peek.tool.name == "Bash" and peek.tool.target == "ls brain-engine/api"
    assert peek.tool.done
    assert peek.runway is not None and len(peek.turns) >= 4 and peek.turns == tuple(sorted(peek.turns))
    assert peek.runway.window == 200_000 and peek.runway.turns_left is not None
    record = os.environ.get(RECORD_ENV)
    if record:
        shutil.copyfile(transcript, record)

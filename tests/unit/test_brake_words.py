"""A pause the remote did not take is said in the pause's own words: never the refused write's "restored",
"nothing was written" or "taken back" beside "the pause is committed here" (`sync.brake.not_pushed`)."""

from __future__ import annotations

import pytest

from brain_tui.core.sync.brake import not_pushed
from brain_tui.core.sync.gitops import CommitFailed, GitBusy, GitError, PushDeclined


@pytest.mark.parametrize("exc", [
    CommitFailed("git commit failed: bad object; the files it was given were restored"),
    GitBusy("a rebase is in progress in this repository; nothing was written. Finish it first"),
    GitError("git diff failed: no merge base; nothing was written"),
])
def test_an_error_without_its_own_reason_is_said_by_what_failed(exc: GitError) -> None:
    said = not_pushed(exc)
    assert said.startswith("the pause is committed here and in force, but not pushed: ")
    assert exc.message.split("; ")[0] in said
    for contradiction in ("restored", "nothing was written", "taken back"):
        assert contradiction not in said, said


def test_an_error_with_its_own_reason_and_step_says_both() -> None:
    exc = PushDeclined("the remote declined the push (hook); nothing was pushed, the local commit was taken back",
                       reason="the remote declined the push (hook)", step="settle it with the remote's owner")
    said = not_pushed(exc)
    assert "the remote declined the push (hook); settle it with the remote's owner, then it goes out" in said
    assert "taken back" not in said

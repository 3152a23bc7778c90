"""What ends a run first and cannot be undone stays (``LoopState.end``): a failure, a
stop or a divergence is never replaced by the model's answer or a limit reached after
it (docs/semantics.md, "Limits")."""

from __future__ import annotations

import pytest

from openprogram_jupyter.engine._loop_state import LoopState

LATER = ["stop", "max_iterations", "max_cost", "max_tokens"]
FINAL = ["error", "aborted", "diverged"]


@pytest.mark.parametrize("first", FINAL)
@pytest.mark.parametrize("later", LATER)
def test_a_failure_a_stop_or_a_divergence_is_never_replaced_by_an_answer_or_a_limit(first, later):
    state = LoopState(conversation=[])
    state.end(first, error_message="the first")
    state.end(later)
    assert state.stop_reason == first and state.error_message == "the first"


@pytest.mark.parametrize("later", LATER)
def test_an_answer_or_a_limit_replaces_a_plain_answer(later):
    state = LoopState(conversation=[])
    state.end("stop")
    state.end(later)
    assert state.stop_reason == later and state.ended == (later != "stop")


def test_a_failure_s_words_are_kept_without_its_fields():
    state = LoopState(conversation=[])
    state.end("error", error_message="socket closed")
    assert (state.stop_reason, state.error_message, state.error) == ("error", "socket closed", None)

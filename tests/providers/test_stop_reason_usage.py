"""A reply keeps the tokens its provider counted however it ended — finished, cut at the
output cap, failed for a documented reason, or ended for a reason this version does not
know — so the run's token count and cost include it."""

from __future__ import annotations

import pytest

from openprogram_jupyter.core.messages import Usage
from openprogram_jupyter.models._stop_reasons import ANTHROPIC, BEDROCK, GEMINI, end_reply
from openprogram_jupyter.models.base import MessageBuilder

USAGE = Usage(input=120, output=30, total_tokens=150)


@pytest.mark.parametrize(
    ("table", "reason", "stop_reason"),
    [
        (ANTHROPIC, "end_turn", "stop"),
        (BEDROCK, "max_tokens", "length"),
        (GEMINI, "SAFETY", "error"),
        (BEDROCK, "a_reason_from_next_year", "stop"),
    ],
)
def test_the_reply_keeps_its_usage_however_it_ended(table, reason, stop_reason):
    out = MessageBuilder("m")
    end_reply(out, "bedrock:m", table, reason, USAGE)
    assert out.message.stop_reason == stop_reason
    assert out.message.usage == USAGE


def test_a_failed_reply_names_the_model_the_words_and_the_provider_s_word():
    out = MessageBuilder("m")
    assert end_reply(out, "gemini:g", GEMINI, "RECITATION", USAGE) is None
    assert out.message.error_message == "gemini:g: the reply recited its training data too closely (RECITATION)"
    assert out.message.error is not None and out.message.error.kind == "refused"

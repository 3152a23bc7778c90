"""The checks of ``temperature``, ``stop_sequences`` and the one-of-these-words settings
(``engine/_setting_flags.py``): their bounds exactly, and the refusal naming the setting."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op


def _refusal(**setting: object) -> op.SetupError:
    with pytest.raises(op.SetupError) as refused:
        op.Runtime(model="offline").prepare("go", **setting)
    return refused.value


@pytest.mark.parametrize("value", [0, 0.5, 1, 2, 2.0, None])
def test_a_temperature_from_0_to_2_is_taken(value):
    op.Runtime(model="offline").prepare("go", temperature=value)


@pytest.mark.parametrize("value", [-0.01, 2.01, float("inf"), float("nan"), "1", True])
def test_a_temperature_outside_0_to_2_or_no_number_is_refused_naming_it(value):
    refused = _refusal(temperature=value)
    assert str(refused) == f"temperature must be a number from 0 to 2 or None, got {value!r}"
    assert refused.option == "temperature"


def test_sixteen_stop_sequences_are_taken_and_seventeen_refused_naming_the_option():
    op.Runtime(model="offline").prepare("go", stop_sequences=[f"END{i}" for i in range(16)])
    for bad in ([f"END{i}" for i in range(17)], ["END", ""], ["END", 3]):
        assert _refusal(stop_sequences=bad).option == "stop_sequences"


def test_a_word_not_among_a_settings_words_is_refused_listing_them():
    refused = _refusal(tool_search="remote")
    assert str(refused) == "tool_search must be one of 'local', 'provider', got 'remote'"
    assert refused.option == "tool_search"

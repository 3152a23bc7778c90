"""``Runtime.replace`` is ``dataclasses.replace`` of one frozen configuration: no keyword of
``Runtime(...)`` can be left behind by a copy, and what a user sets is carried too."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.engine._runtime_config import RuntimeConfig


def test_the_configuration_has_a_field_for_every_keyword_of_runtime():
    keywords = {
        name
        for name, parameter in inspect.signature(op.Runtime).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    }
    fields = {field.name for field in dataclasses.fields(RuntimeConfig)} - {"settings"}
    assert keywords == fields


def test_replace_carries_every_keyword_and_what_the_user_set_after():
    deny = op.policy(deny=["drop_*"])
    runtime = op.Runtime(
        model="offline",
        tools_deny=["secret_*"],
        max_depth=3,
        cancel_grace=0.1,
        record=None,
        system="Be brief.",
        max_iterations=4,
    )
    runtime.approve = deny
    runtime.cancel_grace = 0.2
    copy = runtime.replace(max_iterations=5)
    assert (copy.approve, copy.tools_deny, copy.max_depth, copy.cancel_grace) == (deny, ["secret_*"], 3, 0.2)
    assert copy.settings["system"] == "Be brief." and copy.settings["max_iterations"] == 5
    assert runtime.settings["max_iterations"] == 4  # the original is unchanged


def test_a_list_read_from_the_runtime_is_a_copy():
    runtime = op.Runtime(model="offline", tools_deny=["a"])
    runtime.tools_deny.append("b")
    assert runtime.tools_deny == ["a"]
    runtime.tools_deny = [*runtime.tools_deny, "b"]
    assert runtime.replace().tools_deny == ["a", "b"]


def test_a_bad_setting_in_replace_is_refused_by_name():
    with pytest.raises(op.SetupError, match="max_iterations"):
        op.Runtime(model="offline").replace(max_iterations="many")

"""The provider registry is complete: every descriptor says everything the package needs,
and every table, fake wire and test case matches the descriptors exactly.

Adding a provider is one module with an ``INFO`` plus one line in
``openprogram_jupyter/models/providers.py``; these tests name what else is missing (a
price for its default model, its docs row, its fake wire, its test case)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from fakeserver import FakeServer
from fakeserver.server import _ROUTES

import openprogram_jupyter as op
from openprogram_jupyter.core._install import install_hint
from openprogram_jupyter.models import default_model_name, pricing, resolve_model
from openprogram_jupyter.models._provider_common import ProviderError, ProviderModel
from openprogram_jupyter.models._provider_info import ProviderInfo, ToolRules, ToolShape
from openprogram_jupyter.models.base import Model
from openprogram_jupyter.models.provider_schemas import provider_schemas, schema_problems
from openprogram_jupyter.models.providers import (
    DEFAULT_MODELS,
    PROVIDER_INFOS,
    PROVIDERS,
    SECRET_ENV_VARS,
    TOOL_RULES,
    TOOL_SHAPES,
    key_variables_text,
    provider_info,
)
from openprogram_jupyter.models.replay import scrub

from .cases import CASES
from .test_fakeserver import ORPHAN_CALL
from .test_provider_runs import EXPECTED_FORCED_THEN_AUTO, EXPECTED_NONE, EXPECTED_REQUIRED

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = [info.prefix for info in PROVIDER_INFOS]
TOOL_PREFIXES = [info.prefix for info in PROVIDER_INFOS if info.sends_tools]
# A model string for each provider that declares no tools (those that do have a Case).
LOCAL_MODELS = {"replay": f"replay:{ROOT / 'notebooks' / 'cassettes' / 'lesson.json'}"}


def _model_string(info: ProviderInfo) -> str:
    case = next((c for c in CASES if c.prefix == info.prefix), None)
    if case is not None:
        return case.model
    if info.prefix not in LOCAL_MODELS:
        pytest.fail(f"{info.prefix}: add a model string for it to LOCAL_MODELS (or a Case in cases.py)")
    return LOCAL_MODELS[info.prefix]


def _model_class(info: ProviderInfo) -> type:
    module, name = info.model_class.split(":")
    return getattr(importlib.import_module(module), name)


# -- each descriptor is complete --------------------------------------------------------------


@pytest.mark.parametrize("info", PROVIDER_INFOS, ids=PREFIXES)
def test_the_model_class_is_a_model_that_knows_its_prefix_and_keys(info):
    cls = _model_class(info)
    assert issubclass(cls, Model)
    if issubclass(cls, ProviderModel):
        assert (cls.provider, cls.key_variables) == (info.prefix, info.key_variables)


@pytest.mark.parametrize("info", PROVIDER_INFOS, ids=PREFIXES)
def test_every_prefix_resolves_to_its_class(info):
    model = resolve_model(_model_string(info), api_key="sk-test-0123456789", base_url="http://127.0.0.1:9")
    assert type(model) is _model_class(info)
    assert model.name.startswith(f"{info.prefix}:")


@pytest.mark.parametrize("info", [i for i in PROVIDER_INFOS if i.sends_tools], ids=TOOL_PREFIXES)
def test_a_provider_that_takes_tools_has_keys_and_tool_rules(info):
    assert info.key_variables, f"{info.prefix}: which environment variables hold its credentials?"
    assert isinstance(info.tool_shape, ToolShape) and isinstance(info.tool_rules, ToolRules)
    declaration = info.tool_shape.declare({"name": "ping", "description": "", "parameters": None})
    assert "ping" in repr(declaration), "the declaration carries the tool's name"


@pytest.mark.parametrize("info", [i for i in PROVIDER_INFOS if i.key_hint], ids=lambda i: i.prefix)
def test_a_key_hint_names_one_of_the_providers_key_variables(info):
    assert any(name in info.key_hint for name in info.key_variables)


@pytest.mark.parametrize("info", [i for i in PROVIDER_INFOS if i.extra], ids=lambda i: i.prefix)
def test_an_extra_is_one_the_package_declares(info):
    assert install_hint(info.extra).startswith("pip install "), f"no [{info.extra}] extra in pyproject.toml"


@pytest.mark.parametrize("model", [model for _, model in DEFAULT_MODELS])
def test_every_default_model_has_a_price(model):
    assert pricing.price_for(model) is not None


@pytest.mark.parametrize("prefix", TOOL_PREFIXES)
def test_every_provider_that_takes_tools_is_in_the_providers_doc(prefix):
    assert f"`{prefix}:<" in (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")


def test_contradictory_descriptors_are_refused():
    with pytest.raises(ValueError, match="'module:Class'"):
        ProviderInfo(prefix="x", model_class="no_colon")
    with pytest.raises(ValueError, match="needs a key variable"):
        ProviderInfo(prefix="x", model_class="m:C", default_model="m1")
    with pytest.raises(ValueError, match="without ':'"):
        ProviderInfo(prefix="x:y", model_class="m:C")


# -- the tables hold exactly what the descriptors declare ---------------------------------------


def test_the_tables_are_built_from_the_descriptors_and_nothing_else():
    assert list(PROVIDERS) == PREFIXES
    assert all(provider_info(prefix) is info for prefix, info in zip(PREFIXES, PROVIDER_INFOS, strict=True))
    assert set(SECRET_ENV_VARS) == {name for info in PROVIDER_INFOS for name in info.key_variables}
    assert list(TOOL_SHAPES) == list(TOOL_RULES) == TOOL_PREFIXES
    assert list(provider_schemas({"name": "ping"})) == TOOL_PREFIXES
    assert {line.split(":")[0] for line in schema_problems({"name": "bad name"})} == set(TOOL_PREFIXES)


def test_every_provider_that_takes_tools_has_a_fake_wire_a_route_a_case_and_its_expectations():
    assert set(FakeServer().wires) == set(TOOL_PREFIXES)
    assert {name for _, name in _ROUTES} == set(TOOL_PREFIXES)
    assert sorted(case.prefix for case in CASES) == sorted(TOOL_PREFIXES)
    for table in (EXPECTED_FORCED_THEN_AUTO, EXPECTED_REQUIRED, EXPECTED_NONE, ORPHAN_CALL):
        assert set(table) == set(TOOL_PREFIXES)


# -- consumers read the registry ------------------------------------------------------------------


@pytest.mark.parametrize(("variable", "model"), DEFAULT_MODELS)
def test_a_providers_first_key_variable_alone_makes_its_default_model_the_default(variable, model, monkeypatch):
    monkeypatch.setenv(variable, "k")
    assert default_model_name() == model


def test_with_no_key_set_the_default_is_offline_and_earlier_providers_win(monkeypatch):
    assert default_model_name() == "offline"
    for variable, _ in DEFAULT_MODELS:
        monkeypatch.setenv(variable, "k")
    assert default_model_name() == DEFAULT_MODELS[0][1]


@pytest.mark.parametrize("variable", SECRET_ENV_VARS)
def test_every_key_variable_is_masked_in_cassettes_and_in_its_providers_errors(variable, monkeypatch):
    value = f"plain-secret-of-{variable.lower()}"  # shaped like no known key: only the registry can mask it
    monkeypatch.setenv(variable, value)
    assert value not in scrub({"text": f"it said {value}"})["text"]
    for info in PROVIDER_INFOS:
        if variable in info.key_variables and info.sends_tools:
            model = resolve_model(_model_string(info), base_url="http://127.0.0.1:9")
            assert value not in model._format_error(ProviderError(f"it said {value}"), 0)


def test_the_messages_that_say_which_key_to_set_name_the_registrys_default_key_variables():
    from openprogram_jupyter.jupyter._cell_runtime import offline_note

    assert f"Set {key_variables_text()} (or OPENPROGRAM_MODEL)" in offline_note()
    assert f"set {key_variables_text()}, or pick one" in op.Runtime(model="offline").exec("hi")

"""What the fuzzers share: the profile (``OPENPROGRAM_FUZZ``), the planted key, the count
of examples run, and the invariants every fuzzed run must keep.

``OPENPROGRAM_FUZZ=short`` (the default, what ``.ci/run`` runs): each fuzzer runs its own
small number of examples, derandomized, so the suite is deterministic and the fuzzers
take well under a minute in all. ``long`` (``scripts/fuzz.py``): ``OPENPROGRAM_FUZZ_EXAMPLES``
examples per fuzzer (default 1000) from a random seed, and each example run is counted in
the file ``OPENPROGRAM_FUZZ_COUNTS`` names (one line per example, the fuzzer's name),
which the script reads — also after it stopped a pytest whose time was up.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from transcript_checks import assert_every_call_has_one_result

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import RunStopReason
from openprogram_jupyter.jupyter._saved_runs import saved_run_metadata
from openprogram_jupyter.tools.registry import default_registry

PLANTED = "sk-fuzzPLANTED0123456789abcdefXYZ"  # OPENAI_API_KEY in every fuzzed run: it must never show
STOP_REASONS = set(RunStopReason.__args__)  # type: ignore[attr-defined]
LONG = os.environ.get("OPENPROGRAM_FUZZ", "short") == "long"


def fuzz_settings(short_examples: int) -> settings:
    """The settings of one fuzzer: ``short_examples`` derandomized examples in the short
    profile; the long profile's count from a random seed. No deadline: a run's time
    depends on the shared machine, not on the example."""
    examples = int(os.environ.get("OPENPROGRAM_FUZZ_EXAMPLES", "1000")) if LONG else short_examples
    return settings(
        max_examples=examples,
        derandomize=not LONG,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )


def counted(fuzzer: str) -> None:
    """One more example of ``fuzzer`` ran: a line in ``OPENPROGRAM_FUZZ_COUNTS``, if set."""
    path = os.environ.get("OPENPROGRAM_FUZZ_COUNTS")
    if path:
        with open(path, "a", encoding="utf-8") as counts:
            counts.write(fuzzer + "\n")


@pytest.fixture(autouse=True)
def planted_key(monkeypatch):
    """The key every fuzzed run knows as a secret; the registry empty before and after."""
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    default_registry.clear()
    yield PLANTED
    default_registry.clear()


def check_run(run: op.Run) -> None:
    """The invariants of any run: it ended with a known stop reason, every call has one
    result, its transcript saves as .html/.md/.txt, its notebook metadata encodes as
    UTF-8, ``to_code()`` compiles, and the planted key shows in none of these."""
    assert run.stop_reason in STOP_REASONS, run.stop_reason
    assert run.events[-1].type == "agent_end"
    assert_every_call_has_one_result(run)
    shown = [str(run.error or ""), json.dumps(saved_run_metadata(run, "fuzz", 0), ensure_ascii=False)]
    with tempfile.TemporaryDirectory() as folder:
        for suffix in ("html", "md", "txt"):
            shown.append(run.save(Path(folder) / f"run.{suffix}").read_text(encoding="utf-8"))
    code = run.to_code()
    compile(code, "<to_code>", "exec")
    shown.append(code)
    for text in shown:
        text.encode("utf-8")
        assert PLANTED not in text

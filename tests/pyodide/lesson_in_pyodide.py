"""Run by run_in_pyodide.mjs inside a real Pyodide (test_node_pyodide.py): install every
wheel of /wheels with micropip, then the package's replay lesson through the awaited path,
and write what happened to /work/result.json for the test to check.

Nothing here asserts: each step's outcome, or the error it raised, is recorded, so the
test names the step that went wrong.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from importlib import metadata

RESULT = "/work/result.json"
LESSON_QUESTION = "Which of Oslo, Lisbon and Cairo is warmest today? Check each city."
# What a browser cannot load, or should not pay for, unless a run asks for it.
HEAVY = ["distributed", "dask", "opentelemetry", "mcp", "boto3", "botocore", "dotenv", "nbformat", "nh3"]
HEAVY += ["openai", "anthropic", "httpx", "genai_prices", "markdown_it", "ipywidgets"]

result: dict[str, object] = {"platform": sys.platform}


def outside_modules() -> set[str]:
    """The top-level modules loaded so far that are not the standard library's."""
    return {name.split(".")[0] for name in sys.modules} - set(sys.stdlib_module_names)


def step(name: str):
    """Record the decorated coroutine's return value under ``name``, or its traceback."""

    def record(body):
        async def recorded():
            try:
                result[name] = await body()
            except BaseException:
                result[name] = {"raised": traceback.format_exc(limit=-3)}

        return recorded

    return record


async def install() -> None:
    import micropip

    micropip.set_index_urls([])  # a missing dependency must not send micropip to the network
    wheels = sorted(name for name in os.listdir("/wheels") if not name.startswith("micropip-"))
    await micropip.install([f"emfs:/wheels/{name}" for name in wheels], deps=False)
    result["installed"] = wheels


def missing_requirements() -> list[str]:
    """The package's own requirements (no extras) that no installed distribution meets."""
    missing = []
    for line in metadata.requires("openprogram-jupyter") or []:
        if "extra ==" in line:
            continue
        name = line.split(";")[0].strip().split(">")[0].split("=")[0].split("<")[0].strip()
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    return sorted(missing)


@step("load_ext")
async def load_ext():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    before = outside_modules()
    shell.run_line_magic("load_ext", "openprogram_jupyter")
    return {
        "runtime_in_namespace": type(shell.user_ns.get("runtime")).__name__,
        "imported": sorted(outside_modules() - before),
    }


def lesson_tool(op):
    temperatures = {"Oslo": 4.0, "Lisbon": 19.5, "Cairo": 31.0}

    @op.function
    def temperature(city: str) -> float:
        """Today's temperature in a city, in degrees Celsius.

        Args:
            city: One of Oslo, Lisbon or Cairo.
        """
        return temperatures[city]

    return temperature


@step("replay")
async def replay():
    import openprogram_jupyter as op

    run = await op.Runtime(model="replay:lesson.json").arun(LESSON_QUESTION, tools=[lesson_tool(op)])
    checked = op.check(run).called("temperature", city="Cairo").returned("temperature", 31.0)
    return {
        "stop_reason": run.stop_reason,
        "rounds": run.rounds,
        "text": run.text,
        "calls": [line for line in checked.summary().splitlines() if "temperature(" in line],
        "passed": checked.passed,
    }


@step("offline")
async def offline():
    import openprogram_jupyter as op

    recorded = await op.Runtime(model="offline", record="offline.json").arun("Oslo?", tools=[lesson_tool(op)])
    replayed = await op.Runtime(model="replay:offline.json").arun("Oslo?", tools=[lesson_tool(op)])
    return {"recorded": recorded.text, "replayed": replayed.text, "stop_reason": replayed.stop_reason}


@step("sync_refused")
async def sync_refused():
    import openprogram_jupyter as op

    try:
        op.Runtime(model="offline").run("Oslo?")
    except op.SetupError as error:
        return str(error)
    return "ran"


async def main() -> None:
    try:
        await install()
        result["missing_requirements"] = missing_requirements()
        before = outside_modules()
        import openprogram_jupyter  # noqa: F401

        result["import_imported"] = sorted(outside_modules() - before)
        await load_ext()
        await replay()
        await offline()
        await sync_refused()
        result["heavy_loaded"] = sorted(set(HEAVY) & outside_modules())
    finally:
        with open(RESULT, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=1)

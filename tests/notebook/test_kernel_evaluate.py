"""Real kernel: op.evaluate of 40 prompts × 2 scripted models at concurrency 8, in the
kernel and on a Dask LocalCluster started from the notebook; the table it displays is checked.

Only the current kernel: the ipykernel 6.29 venv is locked without the ``distributed`` extra.
"""

from __future__ import annotations

import re

import pytest

from .conftest import CURRENT
from .kernels import error_of, live_kernel

pytestmark = pytest.mark.slow

# Everything is defined in the notebook, as a user would: Dask sends it to the workers by value.
SETUP = """\
%load_ext openprogram_jupyter
import re, openprogram_jupyter as op

@op.function
def add(a: int, b: int) -> int:
    "Add two numbers."
    return a + b

def numbers(request):
    return [int(n) for n in re.findall(r"\\d+", request.messages[0].text)]

careful = op.ScriptedModel([
    lambda request: op.ToolCall(name="add", arguments=dict(zip("ab", numbers(request)))),
    lambda request: f"The sum is {request.messages[-1].content[0].text}.",
], name="careful")
sloppy = op.ScriptedModel([lambda request: f"The sum is {sum(numbers(request)) + numbers(request)[0] % 2}."],
                          name="sloppy")

def right_sum(run):
    a, b = (int(n) for n in re.findall(r"\\d+", run.messages[0].text))
    assert run.text == f"The sum is {a + b}.", f"wrong answer: {run.text}"

prompts = [f"Add {i} and {i + 1}." for i in range(40)]
"""


@pytest.fixture
def kernel_name(kernelspecs) -> str:
    return CURRENT


def html_of(cell) -> str:
    return "".join(
        o["data"]["text/html"]
        for o in cell.outputs
        if o.output_type in ("execute_result", "display_data") and "text/html" in o.get("data", {})
    )


def check_table(html: str) -> None:
    """The displayed table: a summary row per model, then one row per prompt × model, each
    a <details> that opens on its run's transcript."""
    assert "40/40 (100%)" in html and "20/40 (50%)" in html
    cell = r"<span[^>]*>"
    row = (
        rf'<details class="openprogram-evaluation-row" data-row="(\d+)"[^>]*><summary[^>]*>{cell}'
        rf"{cell}\1</span>{cell}(Add \d+ and \d+\.)</span>{cell}<code>(\w+)</code></span>{cell}([^<]*)</span>"
        rf"{cell}{cell}([^<]*)</span>"
    )
    rows = re.findall(row, html)
    assert len(rows) == 80
    for _number, prompt, model, picks, verdict in rows:
        first = int(prompt.split()[1])
        if model == "careful":
            assert (picks, verdict) == ("add", "✓ pass")
        else:
            assert (picks, verdict) == ("—", "✓ pass" if first % 2 == 0 else "✗ fail")
    assert "wrong answer: The sum is 4." in html  # the failed expectation's message, for "Add 1 and 2."
    assert '<img alt="pass rate and cost per model"' in html  # the plot (this venv's kernel has matplotlib)


async def test_forty_prompts_on_two_models_at_concurrency_eight_in_the_kernel(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        cell = await kernel.run(
            "ev = op.evaluate(prompts, models=[careful, sloppy], tools=[add], expect=right_sum, concurrency=8)\nev"
        )
        assert error_of(cell) is None
        bars = [o["data"] for o in cell.outputs if o.output_type == "display_data" and "<progress" in str(o["data"])]
        assert len(bars) == 1, cell.outputs
        # The bar's first line is the plan; it is left at its final count.
        assert bars[0]["text/plain"].splitlines() == [
            "80 run(s) (40 prompt(s) × 2 model(s)), 80 to 1,600 requests; "
            "cost not estimated: no price known for careful, sloppy",
            "80/80 runs",
        ]
        assert "80 run(s) (40 prompt(s) × 2 model(s))" in bars[0]["text/html"]
        check_table(html_of(cell))


async def test_the_same_evaluation_on_a_dask_local_cluster_from_the_kernel(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        await kernel.text(
            "from distributed import Client, LocalCluster\n"
            "cluster = LocalCluster(n_workers=2, threads_per_worker=4, dashboard_address=None, "
            "silence_logs=40)\nclient = Client(cluster)"
        )
        cell = await kernel.run(
            "ev = op.evaluate(prompts, models=[careful, sloppy], tools=[add], expect=right_sum, "
            "concurrency=8, executor=client.get_executor())\nev"
        )
        assert error_of(cell) is None
        check_table(html_of(cell))
        pids = await kernel.text("import os\nprint(os.getpid() not in client.run(os.getpid).values())")
        assert pids.strip() == "True"
        await kernel.text("client.close(); cluster.close()")

"""Real kernels (both versions) started with an IPython configuration file that sets a
course's rules: each rule holds, and nothing a student's notebook does loosens it —
``%config``, a new ``op.Runtime``, ``-m``, ``approve=``, ``max_cost=`` / ``max_tokens=``
(docs/teaching.md, "Setting up a course")."""

from __future__ import annotations

import pytest

from .kernels import error_of, live_kernel, plain_output

TOOLS = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
ran = []

@op.function
def shell_run(command: str) -> str:
    '''Run a shell command.'''
    ran.append(command)
    return 'ran'

@op.function
def add(a: int, b: int) -> int:
    '''Add two numbers.'''
    ran.append(a + b)
    return a + b

def calling(name, **arguments):
    return op.ScriptedModel([op.ToolCall(name=name, arguments=arguments), 'done'])
"""


@pytest.fixture
def course_config(tmp_path, monkeypatch):
    """Write ``ipython_config.py`` into a fresh IPython directory the kernels start with."""

    def write(text: str):
        profile = tmp_path / "ipython" / "profile_default"
        profile.mkdir(parents=True, exist_ok=True)
        path = profile / "ipython_config.py"
        path.write_text(text)
        monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
        return path

    return write


def shown(cell) -> str:
    """What a cell showed: its outputs' text, its printed lines and its error's one line."""
    error = error_of(cell)
    streams = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    return plain_output(cell) + streams + (f"{error.ename}: {error.evalue}" if error is not None else "")


async def test_configured_rules_hold_against_everything_the_notebook_can_do(kernel_name, course_config):
    path = course_config(
        'c.AgentMagics.allowed_models = ["openai:gpt-4.1-mini"]\n'
        "c.AgentMagics.max_tokens_per_session = 50\n"
        'c.AgentMagics.tools_deny = ["shell_*"]\n'
        'c.AgentMagics.require_approval = {"deny": ["add"]}\n'
    )
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(TOOLS)
        report = shown(await kernel.run("%agent course"))
        assert "allowed_models = ['openai:gpt-4.1-mini']" in report and f"set in {path}" in report
        assert "max_tokens_per_session = 50 (50 left)" in report

        # allowed_models: -m, a new Runtime, and %config widening it.
        refused = shown(await kernel.run("%%agent -m openai:gpt-4o\nhi"))
        assert "the course allows only the models openai:gpt-4.1-mini (allowed_models, set in" in refused
        widened = shown(await kernel.run("%config AgentMagics.allowed_models = ['*']"))
        assert widened == ""  # a second list is added: a model must match both
        refused = shown(await kernel.run("op.Runtime(model='openai:gpt-4o', api_key='sk-x').exec('hi', tools=[])"))
        assert refused.startswith("CourseRefusal: the course allows only the models openai:gpt-4.1-mini")

        # tools_deny: %config, a Runtime with no deny list and an allow-all policy, --tools.
        loosened = shown(await kernel.run("%config AgentMagics.tools_deny = []"))
        assert "AgentMagics.tools_deny = []: the course's rule stays (['shell_*']" in loosened
        await kernel.text(
            "runtime = op.Runtime(approve=op.policy(allow=['*']), tools_deny=[])\n"
            "sh = calling('shell_run', command='ls')"
        )
        cell = await kernel.run("%%agent -m sh --tools shell_run -o r1\nList files.")
        assert error_of(cell) is None
        assert (await kernel.text("print(ran, r1.tools)")).strip() == "[] []"

        # require_approval: the run's own approve= and an allow-all policy come after it.
        direct = await kernel.text(
            "r2 = op.Runtime(model=calling('add', a=1, b=2)).run('add', tools=[add], approve=lambda r: True)\n"
            "print(ran, r2.tool_results[0].status)"
        )
        assert direct.strip() == "[] denied"
        await kernel.text("ad = calling('add', a=1, b=2)")
        cell = await kernel.run("%%agent -m ad --tools add -o r3\nAdd.")
        assert (await kernel.text("print(ran, r3.tool_results[0].status)")).strip() == "[] denied"

        # max_tokens_per_session: %config, max_tokens= and max_cost= bounded, then refused once spent.
        loosened = shown(await kernel.run("%config AgentMagics.max_tokens_per_session = 10**9"))
        assert "the course's rule stays (50," in loosened
        bounded = await kernel.text(
            "spender = op.ScriptedModel([op.AssistantMessage(content=[op.TextContent(text='ok')], "
            "usage=op.Usage(input=10, output=10))] * 5)\n"
            "r4 = op.Runtime(model=spender).run('one', tools=[], max_tokens=10**6, max_cost=100.0)\n"
            "print(r4.spec.settings['max_tokens'])"
        )
        assert int(bounded) <= 50
        await kernel.run("%%agent -m spender --max-tokens 1000000\ntwo")
        last = shown(await kernel.run("%%agent -m spender\nthree"))
        assert "over budget: spent 20 tokens of 10" in last  # what the session had left
        spent = shown(await kernel.run("%%agent -m spender\nfour"))
        assert "the course's token budget for this session is spent (max_tokens_per_session = 50" in spent


async def test_mode_off_turns_every_door_off(kernel_name, course_config):
    course_config('c.AgentMagics.mode = "off"\n')
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(TOOLS)
        cell = shown(await kernel.run("%%agent -m offline\nhi"))
        assert "the course turned the agent off (mode = 'off', set in" in cell
        loosened = shown(await kernel.run("%config AgentMagics.mode = 'normal'"))
        assert "AgentMagics.mode = 'normal': the course's rule stays ('off'" in loosened
        direct = shown(await kernel.run("op.Runtime(model='offline').exec('hi', tools=[])"))
        assert direct.startswith("CourseRefusal: the course turned the agent off")
        assert "the course turned the agent off" in shown(await kernel.run("%%agent\nhi"))


async def test_replay_only_keeps_offline_and_refuses_other_models(kernel_name, course_config):
    course_config('c.AgentMagics.mode = "replay-only"\n')
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(TOOLS + "\nsh = calling('add', a=1, b=2)\n")
        cell = await kernel.run("%%agent -m offline -o r\nhi")
        assert error_of(cell) is None
        refused = shown(await kernel.run("%%agent -m sh --tools add\nAdd."))
        assert "the course allows only replay: cassettes and the offline model (mode = 'replay-only'" in refused
        await kernel.run("%config AgentMagics.mode = 'normal'")
        refused = shown(await kernel.run("op.Runtime(model=sh).exec('Add.', tools=[add])"))
        assert "CourseRefusal: the course allows only replay: cassettes" in refused


async def test_course_context_found_above_the_notebook_reaches_every_run(kernel_name, course_config, tmp_path):
    course_config('c.AgentMagics.context_files = ["COURSE.md"]\n')
    (tmp_path / "course" / "week1").mkdir(parents=True)
    (tmp_path / "course" / "COURSE.md").write_text("Use SI units.\n")
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(f"import os\nos.chdir({str(tmp_path / 'course' / 'week1')!r})\n" + TOOLS)
        assert "course context: COURSE.md (3 tokens" in shown(await kernel.run("%agent course"))
        cell = await kernel.run("%%agent -m offline -o r\nhi")
        assert "\ncourse context (COURSE.md, 3 tokens)\n" in shown(cell)  # the saved transcript's line
        html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
        assert "course context (COURSE.md, 3 tokens)</summary>" in html and "Use SI units." in html
        direct = await kernel.text("print(op.Runtime(model='offline').run('hi', tools=[]).spec.settings['system'])")
        assert direct.startswith("Course context (COURSE.md):\nUse SI units.")

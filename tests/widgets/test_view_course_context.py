"""The course context a run's system prompt carries (``AgentMagics.context_files``) is shown
collapsed — ``course context (COURSE.md, 1.2k tokens)``, the files' text inside, escaped —
in the live view and in every saved form of the transcript (docs/teaching.md, "Course
context")."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core import _course
from openprogram_jupyter.core._course import CourseContext, CourseRules
from openprogram_jupyter.core.events import AgentStartEvent
from openprogram_jupyter.jupyter._live import static_bundle
from openprogram_jupyter.jupyter._view import RunView
from openprogram_jupyter.render import render_bundle

from .test_view import all_html

COURSE_TEXT = "Use SI units. <script>alert('course')</script> & never give the full solution.\n"
SUMMARY = re.compile(r'<details style="margin:2px 0"><summary style="display:list-item;[^"]*">(.*?)</summary>')


@pytest.fixture
def course():
    """A course whose context file is COURSE.md, of about 1.2k tokens."""
    _course._forget_for_tests()
    context = CourseContext(name="COURSE.md", path="/course/COURSE.md", text=COURSE_TEXT * 60, tokens=1234)
    _course.install(CourseRules(context=(context,), sources={"context_files": "set in ipython_config.py"}))
    yield
    _course._forget_for_tests()


def _run(**settings) -> op.Run:
    return op.Runtime(model=op.ScriptedModel(["Done."])).run("Hi.", tools=[], **settings)


def test_the_run_start_says_which_course_context_the_system_prompt_carries(course):
    run = _run(system="Be brief.")
    [start] = [event for event in run.events if isinstance(event, AgentStartEvent)]
    assert [(item.name, item.tokens) for item in start.course_context] == [("COURSE.md", 1234)]
    assert start.course_context[0].text == (COURSE_TEXT * 60).strip()


def test_the_saved_transcript_shows_it_collapsed_and_escaped(course):
    bundle = render_bundle(_run())
    html = bundle["text/html"]
    assert SUMMARY.findall(html) == ["course context (COURSE.md, 1.2k tokens)"]
    assert "<details open" not in html.split("course context (COURSE.md")[0][-200:]
    assert "<script>" not in html and "&lt;script&gt;alert(" in html and "&amp; never give" in html
    assert "course context (COURSE.md, 1.2k tokens)" in bundle["text/plain"].splitlines()[1]
    assert "`course context (COURSE.md, 1.2k tokens)`" in bundle["text/markdown"]
    assert "Use SI units." not in bundle["text/plain"]  # collapsed: the line, not the text


def test_a_cells_saved_output_shows_it_once(course):
    html = static_bundle(_run(), notes=["offline model"])["text/html"]
    assert SUMMARY.findall(html) == ["course context (COURSE.md, 1.2k tokens)"]
    assert "The system prompt carries" not in html


def test_the_live_view_shows_it_collapsed_as_saved(course, recorder):
    view = RunView()
    _run(on_event=view.feed)
    view.finish()
    html = all_html(view)
    assert SUMMARY.findall(html) == ["course context (COURSE.md, 1.2k tokens)"]
    assert "<script>" not in html and "&lt;script&gt;alert(" in html


def test_a_run_without_course_context_shows_none(recorder):
    _course._forget_for_tests()
    view = RunView()
    run = _run(on_event=view.feed)
    view.finish()
    assert "course context" not in all_html(view)
    assert all("course context" not in text for text in render_bundle(run).values())


def test_a_system_prompt_that_does_not_carry_it_is_not_said_to(course):
    from openprogram_jupyter.engine._course_rules import context_shown

    assert context_shown({"system": "Be brief."}) == []
    assert context_shown({"system": None}) == []
    carried = _course.installed().system_with_context("Be brief.")
    assert [item.name for item in context_shown({"system": carried})] == ["COURSE.md"]

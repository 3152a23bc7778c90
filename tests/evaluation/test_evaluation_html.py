"""The evaluation's HTML view cell by cell: the line per model and variant (pass@k with
its interval, the judges' columns), the rows' header and grid (every row lines up with
it), what a row shows under its model and result, and what an opened row holds."""

from __future__ import annotations

import re
import threading
from html.parser import HTMLParser

import openprogram_jupyter as op
from openprogram_jupyter.lab.evaluation import _html
from openprogram_jupyter.render import render_html

from .scenario import add, careful, plain_add, prompts, right_sum, sloppy
from .test_judge import RUBRIC, grader

NUMBER = "text-align:right;vertical-align:top;white-space:nowrap;padding:2px 8px"
TEXT = "text-align:left;vertical-align:top;padding:2px 8px"
TIME = re.compile(r"\d+\.\d\d s")


def stop_at_once() -> threading.Event:
    stop = threading.Event()
    stop.set()
    return stop


def summary_cells(html: str, tag: str) -> list[tuple[str, str]]:
    table = html.split("<table>", 1)[1].split("</table>", 1)[0]
    return re.findall(rf'<{tag} style="([^"]*)">(.*?)</{tag}>', table)


def judged_variants() -> op.Evaluation:
    judge = op.judge(RUBRIC, model=grader())
    called_add = lambda run: op.check(run).called("add")  # noqa: E731
    return op.evaluate(
        prompts(2),
        models=[careful()],
        variants={"short": [plain_add], "long": [plain_add]},
        expect=[called_add, judge],
        repeat=2,
        progress=False,
    )


def test_the_line_per_model_and_variant_gives_pass_at_k_with_its_interval_and_the_judges_columns():
    html = judged_variants()._repr_html_()
    heads = summary_cells(html, "th")
    assert [text for _, text in heads] == [
        "model",
        "variant",
        "passed",
        "pass@2 (95 %)",
        "pass^2 (95 %)",
        "flaky",
        "tokens",
        "cost",
        "time",
        "judge tokens",
        "judge cost",
    ]
    assert [style for style, _ in heads] == [TEXT, TEXT] + [NUMBER] * 9
    cells = [text for _, text in summary_cells(html, "td")]
    assert len(cells) == 22 and all(TIME.fullmatch(cells[i]) for i in (8, 19))
    assert cells[:8] + cells[9:11] == [
        "<code>careful</code>",
        "<code>short</code>",
        "4/4 (100%)",
        "2/2 (100%, 34%–100%)",
        "2/2 (100%, 34%–100%)",
        "0",
        "0",
        "unknown",
        "400",
        "$1.0000",
    ]
    assert cells[12] == "<code>long</code>"


def test_a_plain_evaluation_has_only_the_columns_it_needs():
    ev = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False)
    html = ev._repr_html_()
    assert [text for _, text in summary_cells(html, "th")] == ["model", "passed", "tokens", "cost", "time"]
    cells = [text for _, text in summary_cells(html, "td")]
    assert cells[:2] + cells[5:7] == ["<code>careful</code>", "2/2 (100%)", "<code>sloppy</code>", "1/2 (50%)"]
    assert '<p style="color:#57606a;font-size:0.9em">Click a row to open its run.</p>' in html


def tracks(style: str) -> list[str]:
    columns = re.search(r"grid-template-columns:([^;]*);", style).group(1)  # type: ignore[union-attr]
    return re.findall(r"minmax\([^)]*\)|\S+", columns)


def least(track: str) -> float:
    return float(re.search(r"([\d.]+)em", track).group(1))  # type: ignore[union-attr]


def test_every_row_lines_up_with_the_header_and_the_rows_are_never_narrower_than_their_tracks():
    for ev, judged in ((judged_variants(), True), (op.evaluate(prompts(1), models=[careful()], progress=False), False)):
        html = ev._repr_html_()
        rows = html.split('<div class="openprogram-evaluation-rows" ', 1)[1]
        width = float(re.match(r'style="min-width:([\d.]+)em"', rows).group(1))  # type: ignore[union-attr]
        header = re.search(r'<div style="(display:grid[^"]*)">(.*?)</div>', rows)
        assert header is not None
        grid = tracks(header.group(1))
        names = re.findall(r"<b>(.*?)</b>", header.group(2))
        assert names == ["#", "prompt", "model", "picks", "result", "tokens", "cost"] + ["judge"] * judged + ["time"]
        assert len(grid) == len(names) and all(re.fullmatch(r"[\d.]+em|minmax\([\d.]+em,[\d.]+fr\)", t) for t in grid)
        assert width == round(sum(least(t) for t in grid) + 1.2, 6)  # and the row's indent
        for summary in re.findall(r'<summary style="[^"]*"><span style="([^"]*)">(.*?)</span></summary>', rows):
            assert tracks(summary[0]) == grid and summary[1].count('<span style="padding:2px 8px') == len(names)


def test_a_row_shows_its_variant_and_repeat_under_its_model_and_its_reasons_under_its_result():
    html = judged_variants()._repr_html_()
    row = re.search(r'data-row="3".*?</summary>', html, re.S).group(0)  # type: ignore[union-attr]
    muted = "color:#57606a;font-size:0.9em"
    assert f'<code>careful</code><br><small style="{muted}">variant <code>long</code> · repeat 1</small>' in row
    assert (
        f'<span style="color:#1a7f37">✓ pass</span><br><small style="{muted}">called add</small>'
        f'<br><small style="{muted}">judge: 0+1: right</small>' in row
    )
    first = re.search(r'data-row="0".*?</summary>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "variant <code>short</code></small>" in first and "repeat 0" not in first


def test_a_failed_row_shows_its_result_in_red_with_why_and_a_stopped_one_in_grey():
    wrong = op.ScriptedModel(["The sum is 2."], name="wrong")
    failed = op.evaluate(["Add 0 and 1."], models=[wrong], expect=right_sum, progress=False)._repr_html_()
    assert (
        '<span style="color:#cf222e">✗ fail</span><br><small style="color:#57606a;font-size:0.9em">'
        "expect returned False</small>" in failed
    )
    stopped = op.evaluate(["Hi."], models=[careful()], abort=stop_at_once(), progress=False)._repr_html_()
    assert '<span style="color:#57606a">– stopped</span>' in stopped


def test_an_opened_row_holds_its_transcript_within_the_budget_then_says_where_to_see_it(monkeypatch):
    monkeypatch.setattr(_html, "TRANSCRIPT_CHARS", 10)
    ev = op.evaluate(prompts(2), models=[careful()], tools=[add], progress=False)
    html = ev._repr_html_()
    assert "The sum is 1." in html  # the first row's transcript, though longer than the budget
    assert (
        "Transcripts past the first 10 characters are not kept in the table: <code>ev.show(1)</code> shows this one."
        in html
    )
    assert "The sum is 3." not in html


def test_an_opened_row_that_never_ran_says_why_and_a_judge_that_gave_no_verdict_says_so():
    never = op.evaluate(["Hi."], models=[careful()], abort=stop_at_once(), progress=False)._repr_html_()
    assert "This run never started: the evaluation was stopped before this run started</p>" in never
    mumbles = op.ScriptedModel(["Looks fine."] * 2, name="mumbles")
    html = op.evaluate(
        ["Add 1 and 2."], models=[careful()], tools=[add], expect=op.judge(RUBRIC, model=mumbles), progress=False
    )._repr_html_()
    assert "The judge said no verdict</summary>" in html
    judged = judged_variants()._repr_html_()
    assert "The judge said ✓ pass: 0+1: right</summary>" in judged


def test_a_view_with_no_rows_renders_an_empty_table():
    ev = op.evaluate(prompts(1), models=[careful()], tools=[add], expect=right_sum, progress=False)
    html = ev.where(verdict="timeout")._repr_html_()
    assert summary_cells(html, "td") == [] and "data-row=" not in html


VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "col", "source"}


class Layout(HTMLParser):
    """Text found directly inside the evaluation's own layout (its containers, a row's
    details, a grid) rather than in a cell: stray text a reader would see between cells."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []
        self.stray: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        given = dict(attrs)
        style, kind = given.get("style") or "", given.get("class") or ""
        self.open.append(
            kind.startswith("openprogram-evaluation") or "display:inline-grid" in style or "display:grid" in style
        )

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID:  # a self-closing <img/> ends here too
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] and data.strip():
            self.stray.append(data)


def test_the_view_is_balanced_with_no_stray_text_between_its_cells():
    plain = op.evaluate(prompts(2), models=[careful()], tools=[add], progress=False)
    for ev in (judged_variants(), plain, op.Evaluation(plain.rows, plain.models, stopped=True)):
        layout = Layout()
        layout.feed(ev._repr_html_())
        assert layout.open == [] and layout.stray == []


def test_the_rows_header_right_aligns_the_numbers_and_says_a_row_opens_on_the_judges_verdict_too():
    html = judged_variants()._repr_html_()
    header = re.search(r'<div style="display:grid[^"]*">(.*?)</div>', html).group(1)  # type: ignore[union-attr]
    styles = re.findall(r'<span style="([^"]*)">', header)
    assert [style.startswith("padding:2px 8px;text-align:right") for style in styles] == [False] * 5 + [True] * 4
    assert "Click a row to open its run and the judge's verdict.</p>" in html


def priced(text: str, name: str) -> op.ScriptedModel:
    reply = op.AssistantMessage(content=[op.TextContent(text=text)], usage=op.Usage(total_tokens=7, cost=0.01))
    return op.ScriptedModel([reply], name=name)


def test_a_rows_line_gives_its_prompt_cut_at_300_its_picks_or_a_dash_and_its_costs():
    long_prompt = "Add 1 and 2. " + "x" * 300
    ev = op.evaluate([long_prompt[:300], long_prompt], models=[priced("The sum is 3.", "p")], progress=False)
    html = ev._repr_html_()
    first, second = (re.search(rf'data-row="{n}".*?</summary>', html, re.S).group(0) for n in (0, 1))  # type: ignore[union-attr]
    assert f">{long_prompt[:300]}</span>" in first and f">{long_prompt[:300]}…</span>" in second
    assert ">—</span>" in first and ">$0.0100</span>" in first and "<code>p</code></span>" in first
    assert [text for _, text in summary_cells(html, "td")][3] == "$0.0200"
    twice = op.ScriptedModel(
        [op.ToolCall(name="add", arguments={"a": 1, "b": 2}), op.ToolCall(name="add", arguments={"a": 3, "b": 4}), "7"],
        name="twice",
    )
    picks = op.evaluate(["Add."], models=[twice], tools=[add], progress=False)._repr_html_()
    assert ">add, add</span>" in picks


def test_a_judged_tables_row_the_judge_did_not_grade_shows_a_dash_and_a_failing_verdict_shows_its_mark():
    fails = op.ScriptedModel(['{"call": "fail", "args": {"reason": "not shown enough"}}'], name="strict")
    judge = op.judge(RUBRIC, model=fails)
    checks = lambda run: op.check(run).called("add").at_most(2)  # noqa: E731
    ev = op.evaluate(
        ["Add 1 and 2."], models=[careful(), sloppy()], tools=[add], expect=[checks, judge], progress=False
    )
    html = ev._repr_html_()
    judged, spared = (re.search(rf'data-row="{n}".*?</summary>', html, re.S).group(0) for n in (0, 1))  # type: ignore[union-attr]
    assert re.search(r'>unknown</span><span style="[^"]*">—</span>', spared)  # no judge cost: not graded
    assert "called add; ≤ 2 calls" not in judged  # the rubric of checks shows under a pass only
    assert "The judge said ✗ fail: not shown enough</summary>" in html
    opened = html.split("The judge said ✗ fail: not shown enough</summary>", 1)[1]
    assert opened.startswith(render_html(ev.rows[0].judge_runs[0]))
    assert render_html(ev.rows[0].run) + "<details" in html  # the run's transcript, then the judge's
    passing = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], expect=checks, progress=False)
    assert '<small style="color:#57606a;font-size:0.9em">called add; ≤ 2 calls</small>' in passing._repr_html_()


def test_a_line_with_no_runs_under_its_variant_says_zero_of_zero():
    ev = op.evaluate(
        prompts(1),
        models=[careful(), sloppy()],
        variants={"short": [add], "long": [add]},
        repeat=2,
        progress=False,
    )
    view = ev.where(lambda row: not (row.model == "sloppy" and row.variant == "long"))
    cells = [text for _, text in summary_cells(view._repr_html_(), "td")]
    assert cells[cells.index("<code>long</code>", 20) + 2 : cells.index("<code>long</code>", 20) + 4] == [
        "0/0 (0%, 0%–100%)",
        "0/0 (0%, 0%–100%)",
    ]


def test_a_row_without_variant_or_repeat_shows_its_model_alone():
    html = op.evaluate(prompts(1), models=[careful()], tools=[add], progress=False)._repr_html_()
    assert "<code>careful</code></span>" in re.search(r'data-row="0".*?</summary>', html, re.S).group(0)  # type: ignore[union-attr]

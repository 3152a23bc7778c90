"""A cost above zero never reads as zero (issue 43, item 9): ``< $0.0001``, not ``$0.0000``."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle
from openprogram_jupyter.render._format import spend_meter, usage_summary

TINY = op.Usage(input=12, output=3, total_tokens=15, cost=0.000012)


def tiny_run() -> op.Run:
    reply = op.AssistantMessage(content=[op.TextContent(text="ok")], usage=TINY)
    return op.Runtime(model=op.ScriptedModel([reply])).run("Say ok.", max_cost=0.05)


def test_a_tiny_real_cost_reads_less_than_a_hundredth_of_a_cent_everywhere():
    assert usage_summary(TINY).endswith("· < $0.0001")
    assert spend_meter(TINY, 0.05, None)[0] == "< $0.0001 of $0.05"
    bundle = render_bundle(tiny_run())
    for mime in ("text/plain", "text/html"):
        assert "< $0.0001" in bundle[mime].replace("&lt;", "<") and "$0.0000" not in bundle[mime], mime
    assert r"< \$0.0001" in bundle["text/markdown"].replace("&lt;", "<")


def test_the_evaluation_table_and_plot_say_so_too():
    from openprogram_jupyter.lab.evaluation._html import cost_text

    assert cost_text(0.000012) == "< $0.0001"
    ev = op.evaluate(
        ["Say ok."],
        models=[op.ScriptedModel([op.AssistantMessage(content=[op.TextContent(text="ok")], usage=TINY)], name="cheap")],
        progress=False,
    )
    html = ev._repr_html_()
    assert "&lt; $0.0001" in html and "$0.0000" not in html


def test_zero_and_ordinary_costs_keep_four_places():
    from openprogram_jupyter.lab.evaluation._html import cost_text

    assert (cost_text(0.0), cost_text(0.00005), cost_text(0.0412)) == ("$0.0000", "$0.0001", "$0.0412")

"""Rerunning a recorded run against the tools as they are now: regression testing for tools.

``run.rerun()`` plays back the run's recorded replies round by round — no model request —
while the tools run again for real. As long as every result reads to the model as the
recorded one did, the recording stays valid and the rerun follows it to its end. The
first round whose results differ is the divergence (``Run.divergence``: the round, the
call, both results and why); there the rerun ends as ``"diverged"`` (``live=False``, the
default: it costs nothing) or goes on with the model from the next round (``live=True``).
:func:`rerun_all` does it for many runs and returns a table: which runs break, and where.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, cast

from ..core import _ambient, _viewer
from ..core.errors import SetupError
from ..core.events import Divergence
from ._divergence import Same
from .forking import prepare_within, recorded_rounds, reused_settings, same_tools
from .spec import RerunPlan, RunSpec

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._runtime_shape import EngineRuntime
    from .run import Run
    from .spec import RerunOptions

__all__ = ["RerunReport", "RerunRow", "rerun_all", "rerun_spec"]


def rerun_spec(
    run: Run,
    runtime: EngineRuntime,
    *,
    tools: Sequence[object] = (),
    live: bool = False,
    same: Same | None = None,
    **options: Any,
) -> RunSpec:
    """The spec of a rerun of ``run`` on ``runtime``.

    The tools are the run's, by name, each taken from ``tools`` when one there has that
    name, else as registered now (:func:`~openprogram_jupyter.engine.forking.same_tools`); the
    settings are the run's (but ``step``) with ``options`` over them; ``same(recorded,
    now)``, when given, decides whether two results count as the same. It runs under the
    recorded run's context (:func:`~openprogram_jupyter.engine.forking.prepare_within`), and a
    call the recording denied or skipped is refused again with its recorded result — or,
    given ``approve=``, asked about again — and one it ran with edited arguments runs with
    them again (:class:`~openprogram_jupyter.engine._run_context.RecordedAnswers`). A run without a
    prompt or without a round, or a ``same`` that is not callable, raises
    :class:`SetupError` naming it.
    """
    if not isinstance(live, bool):
        raise SetupError(f"rerun: live must be True or False, got {live!r}", option="live")
    if same is not None and not callable(same):
        raise SetupError(f"rerun: same must be a function (recorded, now) -> bool, got {same!r}", option="same")
    prompts, rounds = recorded_rounds(run.messages)
    if not prompts:
        raise SetupError(f"rerun: run {run.run_id} has no prompt to start from")
    if not rounds:
        raise SetupError(f"rerun: run {run.run_id} has no recorded round to replay")
    chosen = same_tools(run, runtime, "rerun", given=tools)
    spec = prepare_within(run, runtime, prompts[0], tools=chosen, **reused_settings(run, options))
    return dataclasses.replace(
        spec,
        prompts=tuple(prompts),
        rerun=RerunPlan(tuple(rounds), live=live, same=same),
        replayed_from=_viewer.name_of(run) or run.run_id,
        compactions=tuple(run.compactions),
    )


@dataclass(frozen=True)
class RerunRow:
    """One run of :func:`rerun_all`: its ``label``, the ``original`` run, its ``rerun`` and
    where that diverged (``None``: it followed the recording to the end)."""

    label: str
    original: Run
    rerun: Run

    @property
    def divergence(self) -> Divergence | None:
        return self.rerun.divergence

    @property
    def cells(self) -> tuple[str, str, str, str]:
        """``(run, diverged at, call, why)`` as text."""
        found = self.divergence
        if found is None:
            return self.label, "—", "", "no divergence"
        return self.label, f"round {found.round}", found.tool_name or "", found.why


class RerunReport:
    """The table of :func:`rerun_all`: one :class:`RerunRow` per run, in the order given.

    Iterating gives the rows; ``diverged`` lists those that parted from their recording.
    In a notebook it shows as a table (run, diverged at, call, why)."""

    def __init__(self, rows: Sequence[RerunRow]) -> None:
        self.rows = list(rows)

    @property
    def diverged(self) -> list[RerunRow]:
        return [row for row in self.rows if row.divergence is not None]

    def __iter__(self) -> Iterator[RerunRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> RerunRow:
        return self.rows[index]

    def __repr__(self) -> str:
        lines = [f"{len(self.diverged)} of {len(self.rows)} run(s) diverged"]
        lines += ["  " + " · ".join(part for part in row.cells if part) for row in self.rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ..render._safe import safe_view
        from ..render._table import html_table

        rows = [[escape(cell) for cell in row.cells] for row in self.rows]
        caption = escape(f"{len(self.diverged)} of {len(self.rows)} run(s) diverged")
        table = html_table(["run", "diverged at", "call", "why"], rows)
        return safe_view("text/html", f"<div><div>{caption}</div>{table}</div>")


def rerun_all(
    runs: Sequence[Run] | Mapping[str, Run],
    *,
    tools: Sequence[object] = (),
    live: bool = False,
    runtime: EngineRuntime | None = None,
    **options: Unpack[RerunOptions],
) -> RerunReport:
    """Rerun each of ``runs`` (a list, labelled by run id, or a mapping of labels to runs)
    with ``tools``, ``live`` and ``options`` (``same=`` among them) as :meth:`Run.rerun
    <openprogram_jupyter.engine.run.Run.rerun>` takes them, one after another, on ``runtime``
    (default: the Runtime that ran each, else the notebook's). Something that is not a
    Run raises ``TypeError`` naming it, before anything runs."""
    from .run import Run

    labelled = list(runs.items()) if isinstance(runs, Mapping) else [(None, run) for run in runs]
    for label, run in labelled:
        if not isinstance(run, Run):
            where = f"runs[{label!r}]" if label is not None else "runs"
            raise TypeError(f"rerun_all: {where} holds a {type(run).__name__}, not a Run")
    rows = []
    for label, run in labelled:
        base = runtime or run.runtime or cast("EngineRuntime", _ambient.ambient_runtime())
        rerun = base.rerun(run, tools=tools, live=live, **options)
        rows.append(RerunRow(str(label) if label is not None else run.run_id, run, rerun))
    return RerunReport(rows)

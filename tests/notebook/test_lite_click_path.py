"""An ``%%agent`` cell under Pyodide (JupyterLite): its kernel delivers a click only after the
cell ends, so the view says the run cannot be stopped while it goes on, instead of the
ipykernel advice (Kernel ▸ Interrupt, jupyter-ui-poll) that does not apply there."""

from __future__ import annotations

import sys

import ipykernel

from openprogram_jupyter.jupyter._cell import click_path


def test_an_awaited_cell_under_pyodide_says_stop_waits_for_the_cell(monkeypatch):
    monkeypatch.setattr(ipykernel, "__version__", "6.9.2")  # the pyodide kernel's ipykernel shim
    monkeypatch.setattr(sys, "platform", "emscripten")
    path = click_path(None, "awaited")
    assert path.clicks is False
    assert path.note == (
        "In JupyterLite a click reaches the kernel only after the cell ends, so this run cannot be "
        "stopped while it goes on: it ends at its own limits (max_rounds, budget)."
    )
    assert path.pump is None


def test_the_same_kernel_version_elsewhere_keeps_the_ipykernel_advice(monkeypatch):
    monkeypatch.setattr(ipykernel, "__version__", "6.9.2")
    assert click_path(None, "awaited").clicks is True

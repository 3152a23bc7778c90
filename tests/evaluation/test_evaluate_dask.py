"""op.evaluate(executor=...) on a Dask ``distributed`` LocalCluster: every run is a job on a
worker process; the table is the same as in-process."""

from __future__ import annotations

import os

import pytest

import openprogram_jupyter as op

from .scenario import careful, plain_add, prompts, right_sum, sloppy


@pytest.fixture(scope="module")
def dask_client():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=4, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_forty_prompts_on_two_models_on_a_local_cluster_give_the_right_table(dask_client):
    evaluation = op.evaluate(
        prompts(40),
        models=[careful(), sloppy()],
        tools=[plain_add],
        expect=right_sum,
        concurrency=8,
        executor=dask_client.get_executor(),
        progress=False,
    )
    assert len(evaluation.rows) == 80
    assert [(s.model, s.runs, s.passed) for s in evaluation.summary()] == [("careful", 40, 40), ("sloppy", 40, 20)]
    assert all(row.picks == ["add"] for row in evaluation.rows if row.model == "careful")
    assert [row.passed for row in evaluation.rows if row.model == "sloppy"] == [i % 2 == 0 for i in range(40)]
    worker_pids = set(dask_client.run(os.getpid).values())
    assert os.getpid() not in worker_pids and len(worker_pids) == 2  # the runs happened in other processes


def test_a_run_that_fails_on_the_cluster_is_a_row(dask_client):
    broken = op.ScriptedModel([], name="broken")
    evaluation = op.evaluate(
        prompts(2), models=[careful(), broken], tools=[plain_add], executor=dask_client.get_executor(), progress=False
    )
    assert [row.verdict for row in evaluation.rows] == ["pass", "error", "pass", "error"]


def test_a_job_that_cannot_be_sent_is_a_row_saying_so(dask_client):
    from .scenario import add  # holds a lock through its module's globals: it cannot be pickled

    evaluation = op.evaluate(
        prompts(2), models=[careful()], tools=[add], executor=dask_client.get_executor(), progress=False
    )
    assert [row.verdict for row in evaluation.rows] == ["error", "error"]
    assert "could not run it" in evaluation.rows[0].why and "pickle" in evaluation.rows[0].why

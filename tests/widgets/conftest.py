"""A recording comm: widgets built in these tests talk to a list instead of a kernel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from comm.base_comm import BaseComm

from openprogram_jupyter.tools.registry import default_registry


@dataclass
class CommMessage:
    at: float
    comm_id: str
    msg_type: str  # comm_open, comm_msg, comm_close
    data: dict[str, Any]

    @property
    def is_update(self) -> bool:
        return self.msg_type == "comm_msg" and (self.data or {}).get("method") == "update"


class Recorder:
    """Every message every widget sent, stamped with ``clock()``."""

    def __init__(self) -> None:
        self.messages: list[CommMessage] = []
        self.clock = lambda: 0.0

    def updates(self) -> list[CommMessage]:
        return [m for m in self.messages if m.is_update]

    def closed(self) -> set[str]:
        return {m.comm_id for m in self.messages if m.msg_type == "comm_close"}

    def opened(self) -> set[str]:
        return {m.comm_id for m in self.messages if m.msg_type == "comm_open"}


class RecordingComm(BaseComm):
    recorder: Recorder

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        self.recorder.messages.append(CommMessage(self.recorder.clock(), self.comm_id, msg_type, data or {}))


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    import ipywidgets.comm

    rec = Recorder()

    def create_comm(**kwargs: Any) -> RecordingComm:
        comm = RecordingComm.__new__(RecordingComm)
        comm.recorder = rec
        BaseComm.__init__(comm, **kwargs)
        return comm

    monkeypatch.setattr(ipywidgets.comm, "create_comm", create_comm)
    return rec


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()

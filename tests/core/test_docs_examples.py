"""The examples in docs/semantics.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"


def test_semantics_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 5
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert namespace["rt"].last_run.stop_reason == "max_iterations"
    assert namespace["run"].messages[2].text.startswith("Error: add: invalid arguments")

"""``python -m openprogram_jupyter``: a short offline demo of the loop, printed as a transcript."""

from __future__ import annotations

import openprogram_jupyter as op


def main() -> None:
    @op.function(register_globally=False)
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    runtime = op.Runtime(model="offline")
    run = runtime.run("What is 1.5 + 1.5?", tools=[add])
    print(repr(run))


if __name__ == "__main__":
    main()

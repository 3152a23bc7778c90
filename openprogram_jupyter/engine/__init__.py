"""A run: its record, settings and spec, the loop, tool calls, the Runtime."""

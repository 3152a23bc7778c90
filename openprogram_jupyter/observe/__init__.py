"""Watching runs from outside: OpenTelemetry traces."""

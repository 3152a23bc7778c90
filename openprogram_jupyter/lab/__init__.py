"""The tool-design lab: checks, runs as code and as tests, decisions, evaluations."""

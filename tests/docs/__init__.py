"""The documentation runs: every python/ipython block of README.md and docs/ (test_docs_run.py)."""

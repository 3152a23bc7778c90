#!/usr/bin/env bash
# Coverage of the package, the kernel subprocesses of both kernel versions included.
# Run on demand, not in CI:
#
#   bash scripts/coverage.sh                       # the whole suite
#   bash scripts/coverage.sh tests/notebook -x     # any pytest arguments
#
# It needs the two venvs .ci/run builds (.venvs/test, and .venvs/legacy-kernel or
# $OPENPROGRAM_LEGACY_VENV); override the test Python with $TEST_PYTHON. Neither venv is
# changed: coverage is installed into a folder of its own (.venvs/coverage/lib), which the
# hook in scripts/coverage_hook/sitecustomize.py puts on sys.path of every Python process
# started below — pytest, each kernel (ipykernel 7.4+ from the test venv, ipykernel 6.29
# from the legacy venv), nbclient's notebook kernels — and starts coverage in it. The hook
# folder is on PYTHONPATH only for this script's run.
#
# Every process writes its own data file (parallel = true in pyproject.toml's
# [tool.coverage.run]); they are combined at the end, and the report printed lists each
# module of the package. Kernels must shut down cleanly to save their data: the tests'
# kernels do (nbclient's graceful shutdown); sigterm = true saves it on SIGTERM too.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COVERAGE_VERSION=7.16.2
TEST_PYTHON=${TEST_PYTHON:-$REPO/.venvs/test/bin/python}
export OPENPROGRAM_LEGACY_VENV=${OPENPROGRAM_LEGACY_VENV:-$REPO/.venvs/legacy-kernel}
LEGACY_PYTHON=$OPENPROGRAM_LEGACY_VENV/bin/python
for python in "$TEST_PYTHON" "$LEGACY_PYTHON"; do
    [[ -x $python ]] || { echo "missing $python: run bash .ci/run first" >&2; exit 2; }
done
version() { "$1" -c 'import sys; print(sys.implementation.cache_tag)'; }
if [[ $(version "$TEST_PYTHON") != $(version "$LEGACY_PYTHON") ]]; then
    echo "the two venvs use different Pythons; one coverage install cannot serve both" >&2
    exit 2
fi

OUT=$REPO/.venvs/coverage
LIB=$OUT/lib
if [[ ! -d $LIB/coverage-$COVERAGE_VERSION.dist-info ]]; then
    [[ -n ${UV:-} ]] || source .ci/uv.sh
    rm -rf "$LIB"
    "$UV" pip install --quiet --target "$LIB" --python "$TEST_PYTHON" "coverage==$COVERAGE_VERSION"
fi
rm -rf "$OUT/data" && mkdir -p "$OUT/data"

export COVERAGE_PROCESS_START=$REPO/pyproject.toml
export COVERAGE_FILE=$OUT/data/.coverage
export OPENPROGRAM_COVERAGE_LIB=$LIB
export PYTHONPATH=$REPO:$REPO/scripts/coverage_hook${PYTHONPATH:+:$PYTHONPATH}

status=0
"$TEST_PYTHON" -m pytest -q -p no:cacheprovider "$@" || status=$?
unset COVERAGE_PROCESS_START
export PYTHONPATH=$LIB
"$TEST_PYTHON" -m coverage combine --quiet --rcfile=pyproject.toml "$OUT/data"
"$TEST_PYTHON" -m coverage report --rcfile=pyproject.toml | tee "$OUT/report.txt"
echo "pytest exit code: $status; report in .venvs/coverage/report.txt"
exit $status

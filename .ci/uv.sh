# Sourced by .ci/run and .ci/lock: puts a pinned uv in .venvs/uv (made once, reused) and
# sets $UV to it. The machine's own Python is only used to create that venv.
UV_VERSION=0.13.9
export UV_PYTHON_DOWNLOADS=never   # environments use the Python on PATH, never a download
UV=.venvs/uv/bin/uv
if [[ ! -x $UV ]] || [[ $("$UV" --version) != "uv $UV_VERSION"* ]]; then
    rm -rf .venvs/uv
    python3 -m venv .venvs/uv
    .venvs/uv/bin/python -m pip install -q --disable-pip-version-check "uv==$UV_VERSION"
fi

#!/usr/bin/env bash
# Build a JupyterLite site that runs the Lite lessons with nothing to install and no network:
#
#   bash scripts/build_lite.sh [OUTPUT_DIR]        (default: .venvs/lite-site)
#
# The site holds the notebooks of notebooks/lite/ (replay-lesson.ipynb with its cassette
# beside it, cassettes/lesson.json; live-provider.ipynb, a live model asked from the page), a
# Pyodide of its own (static/pyodide: the npm `pyodide` package of tests/pyodide, in place of
# the kernel's default CDN), and a package index of its own (pypi/: this package's wheel and
# the wheels of requirements/pyodide.txt), from which each notebook's first cell installs. Serve OUTPUT_DIR with any static file server
# (`python -m http.server -d OUTPUT_DIR`) or publish it as it is (GitHub Pages).
#
# LESSON (a notebook whose first cell is `%pip install --no-deps -r requirements.txt`) and
# CASSETTES (a folder: its *.json go to the site's cassettes/) put another lesson in the site,
# alone, in place of notebooks/lite/'s.
# PYTHON (default: python3) must have jupyterlite-core and jupyterlite-pyodide-kernel
# (`pip install -e '.[lite]'` in an environment of its own, as .ci/run's .venvs/lite: the
# Pyodide kernel's lab extension fails to load in a JupyterLab of the same environment). What is missing is fetched once, as CI
# does: the Pyodide with `npm ci --prefix tests/pyodide`, the wheels with pip (hashes
# checked) into .venvs/pyodide-wheels (PYODIDE_WHEELS overrides that folder).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# Paths given are read from the folder the script was started in; the defaults are the repo's.
output=$(realpath -m "${1:-$repo/.venvs/lite-site}")
if [[ -n ${LESSON:-} ]]; then
    lessons=("$(realpath -m "$LESSON")")
else
    lessons=("$repo"/notebooks/lite/*.ipynb)
fi
cassettes=$(realpath -m "${CASSETTES:-$repo/notebooks/cassettes}")
wheels=$(realpath -m "${PYODIDE_WHEELS:-$repo/.venvs/pyodide-wheels}")
python=${PYTHON:-python3}
[[ $python == */* ]] && python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python")
pyodide=$repo/tests/pyodide/node_modules/pyodide
cd "$repo"

fail() { echo "build_lite.sh: $*" >&2; exit 1; }

for lesson in "${lessons[@]}"; do [[ -f $lesson ]] || fail "no lesson notebook $lesson"; done
compgen -G "$cassettes/*.json" >/dev/null || fail "no cassette (*.json) in $cassettes"
"$python" -c "import jupyterlite_core, jupyterlite_pyodide_kernel" 2>/dev/null \
    || fail "$python has no jupyterlite-core / jupyterlite-pyodide-kernel: pip install -e '.[lite]' (or set PYTHON)"
if [[ ! -f $pyodide/pyodide.mjs ]]; then
    command -v npm >/dev/null || fail "no Pyodide in $pyodide and no npm to install it (npm ci --prefix tests/pyodide)"
    npm ci --silent --no-audit --no-fund --prefix tests/pyodide
fi
if ! compgen -G "$wheels/micropip-*.whl" >/dev/null; then
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --require-hashes --platform any --platform pyemscripten_2026_0_wasm32 --python-version 3.14 \
        --implementation cp --abi cp314 --abi abi3 --abi none -d "$wheels" -r requirements/pyodide.txt
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lite/static/pyodide" "$stage/contents/cassettes" "$stage/wheels"

# The package's wheel beside its dependencies' (micropip is Pyodide's own, below).
"$python" -m hatchling build -t wheel -d "$stage/wheels" >/dev/null 2>&1 \
    || fail "could not build the package's wheel (needs hatchling: pip install hatchling)"
find "$wheels" -name '*.whl' ! -name 'micropip-*' -exec cp {} "$stage/wheels/" \;

# The site's Pyodide: the npm package's runtime files and a lock file of its own.
"$python" scripts/lite_pyodide.py "$pyodide" "$wheels" "$stage/lite/static/pyodide"

# What the lesson's first cell installs, by name, from the site's index.
cp "${lessons[@]}" "$stage/contents/"
cp "$cassettes"/*.json "$stage/contents/cassettes/"
for wheel in "$stage"/wheels/*.whl; do
    basename "$wheel" | cut -d- -f1 | tr _ -
done | sort > "$stage/contents/requirements.txt"

# Only the extensions the lesson needs (the widgets' manager, the Pyodide kernel): whatever
# else PYTHON's environment has installed (a git diff button, say) stays out of the site.
prefix=$("$python" -c 'import sys; print(sys.prefix)')
for extension in @jupyter-widgets/jupyterlab-manager @jupyterlite/pyodide-kernel-extension; do
    [[ -d $prefix/share/jupyter/labextensions/$extension ]] || fail "no $extension in $prefix"
    mkdir -p "$stage/extensions/${extension%/*}"
    cp -r "$prefix/share/jupyter/labextensions/$extension" "$stage/extensions/$extension"
done
cat > "$stage/lite/jupyter_lite_config.json" <<JSON
{
  "LiteBuildConfig": {"ignore_sys_prefix": ["federated_extensions"]},
  "FederatedExtensionAddon": {"extra_labextensions_path": ["$stage/extensions"]}
}
JSON

cat > "$stage/lite/jupyter-lite.json" <<'JSON'
{
  "jupyter-lite-schema-version": 0,
  "jupyter-config-data": {
    "litePluginSettings": {
      "@jupyterlite/pyodide-kernel-extension:kernel": {"disablePyPIFallback": true}
    }
  }
}
JSON

# A student opening a lesson gets its kernel started, never a "Select Kernel" dialog (the
# one JupyterLab shows when the notebook opens before the kernel specs have arrived).
cat > "$stage/lite/overrides.json" <<'JSON'
{"@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": true}}
JSON

rm -rf "$output"
piplite_wheels=()
for wheel in "$stage"/wheels/*.whl; do piplite_wheels+=(--piplite-wheels "$wheel"); done
(cd "$stage/lite" && "$python" -m jupyterlite_core build --no-sourcemaps --contents "$stage/contents" \
    --output-dir "$output" "${piplite_wheels[@]}" >"$stage/build.log" 2>&1) \
    || { tail -40 "$stage/build.log" >&2; fail "jupyter lite build failed"; }
for lesson in "${lessons[@]}"; do
    echo "built $output: $(basename "$lesson") at lab/index.html?path=$(basename "$lesson")"
done

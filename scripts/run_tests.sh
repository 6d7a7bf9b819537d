#!/usr/bin/env bash
# Runs every test from a clean clone: installs what is missing (GoogleTest,
# the package and its test dependencies), builds the C++ core and its
# GoogleTest suite, runs ctest, then the Python suite.
#   TORCHLITE_CUDA=AUTO|ON|OFF   CUDA build of the C++ suite (default AUTO)
#   TORCHLITE_BUILD_DIR          where the C++ suite is built (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."

cuda="${TORCHLITE_CUDA:-AUTO}"
build_dir="${TORCHLITE_BUILD_DIR:-build}"

if [ ! -f /usr/include/gtest/gtest.h ]; then
  echo "== installing GoogleTest (libgtest-dev)"
  apt-get update -qq && apt-get install -y -qq libgtest-dev
fi

echo "== C++: configure and build (TORCHLITE_CUDA=$cuda, $build_dir)"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTORCHLITE_CUDA="$cuda" >/dev/null
cmake --build "$build_dir" -j 2

echo "== C++: ctest"
(cd "$build_dir" && ctest -j 2 --output-on-failure)

if [ -f pyproject.toml ] && [ -d tests/python ] && [ "${TORCHLITE_SKIP_PYTHON:-0}" != 1 ]; then
  echo "== Python: install the package and test dependencies"
  python -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12"
  python -m pip install -q -e ".[test]" --no-build-isolation
  if ! python -c "import torch" >/dev/null 2>&1; then
    # The CPU build on these machines' disk; differential tests need it.
    python -m pip install -q torch==2.13.0 || echo "torch not installable: differential tests will skip"
  fi
  echo "== Python: pytest"
  python -m pytest tests/python -q
fi

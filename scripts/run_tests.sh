#!/usr/bin/env bash
# Runs every test from a clean clone: installs what is missing (GoogleTest,
# the package and its test dependencies), builds the C++ core and its
# GoogleTest suite, runs ctest, then the Python suite.
#   TORCHLITE_CUDA=AUTO|ON|OFF   CUDA build of the C++ suite (default AUTO; OFF when sanitizing)
#   TORCHLITE_SANITIZE=thread|address,undefined
#                                the C++ suite under ThreadSanitizer or AddressSanitizer with
#                                UndefinedBehaviorSanitizer (any finding fails its test)
#   TORCHLITE_BUILD_DIR          where the C++ suite is built (default build/, build-tsan/ with
#                                TORCHLITE_SANITIZE=thread, build-asan/ with address,undefined)
#   TORCHLITE_SKIP_PYTHON=1      the C++ suite only
#   TORCHLITE_SKIP_CPP=1         the Python suite only
#   TORCHLITE_PYTHON             the interpreter the package is built for and tested with (default
#                                python), e.g. /root/.pyenv/versions/3.10.13/bin/python
#   TORCHLITE_EXTRAS=test,viz    the package's extras to install (default test; CI adds viz)
#   TORCHLITE_NO_TORCH=1         do not install torch (the differential tests' oracle): they skip
#   CI=true                      torch is required (the differential tests fail without it)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize="${TORCHLITE_SANITIZE:-}"
if [ -n "$sanitize" ]; then cuda="${TORCHLITE_CUDA:-OFF}"; else cuda="${TORCHLITE_CUDA:-AUTO}"; fi
case "$sanitize" in
  "") default_dir=build ;;
  thread) default_dir=build-tsan ;;
  address,undefined) default_dir=build-asan ;;
  *) default_dir="build-san-${sanitize//,/-}" ;;
esac
build_dir="${TORCHLITE_BUILD_DIR:-$default_dir}"
py="${TORCHLITE_PYTHON:-python}"
in_ci=0
case "${CI:-}" in ""|0|false|FALSE|False) ;; *) in_ci=1 ;; esac

if [ "${TORCHLITE_SKIP_CPP:-0}" != 1 ]; then
  if [ ! -f /usr/include/gtest/gtest.h ]; then
    echo "== installing GoogleTest (libgtest-dev)"
    apt-get update -qq && apt-get install -y -qq libgtest-dev
  fi

  echo "== C++: configure and build (TORCHLITE_CUDA=$cuda${sanitize:+, TORCHLITE_SANITIZE=$sanitize}, $build_dir)"
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  config=(-DCMAKE_BUILD_TYPE=Release)
  if [ -n "$sanitize" ]; then
    # Line numbers in the reports; undefined behaviour aborts the test instead of printing and going on.
    config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-fno-sanitize-recover=all)
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  fi
  cmake -S . -B "$build_dir" "${generator[@]}" "${config[@]}" -DTORCHLITE_CUDA="$cuda" \
    -DTORCHLITE_SANITIZE="$sanitize" >/dev/null
  cmake --build "$build_dir" -j 2

  echo "== C++: ctest"
  (cd "$build_dir" && ctest -j 2 --output-on-failure)
fi

if [ -f pyproject.toml ] && [ -d tests/python ] && [ "${TORCHLITE_SKIP_PYTHON:-0}" != 1 ]; then
  echo "== Python ($("$py" --version)): build the package (the C++ extension, about a minute on 2 cores)" \
    "and install it with its test dependencies"
  "$py" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" numpy  # numpy: its headers (the C++ dispatch)
  # -v shows the build's progress ([n/N] Building CXX ...) instead of a silent minute
  "$py" -m pip install -v -e ".[${TORCHLITE_EXTRAS:-test}]" --no-build-isolation 2>&1 |
    grep -E "\[[0-9]+/[0-9]+\]|Successfully installed|rror" || true
  "$py" -c "import torchlite" || { echo "error: the package did not build (rerun: $py -m pip install -v -e .)" >&2; exit 1; }
  if [ "${TORCHLITE_NO_TORCH:-0}" = 1 ] && [ "$in_ci" != 1 ]; then
    echo "TORCHLITE_NO_TORCH=1: torch is not installed; the differential tests skip where it is missing"
  elif ! "$py" -c "import torch" >/dev/null 2>&1; then
    # The CPU build on these machines' disk; differential tests need it.
    "$py" -m pip install -q torch==2.13.0 || echo "torch==2.13.0 could not be installed"
  fi
  if ! torch_error="$("$py" -c "import torch" 2>&1)"; then
    if [ "$in_ci" = 1 ]; then
      echo "error: CI needs torch for the differential tests, and \`import torch\` failed after the install attempt:" >&2
      echo "$torch_error" | tail -1 >&2
      exit 1
    fi
    echo "torch cannot be imported: the differential tests will skip (in CI they fail)"
  fi
  echo "== Python: pytest"
  "$py" -m pytest tests/python -q
fi

#!/usr/bin/env bash
# The main job from a clean clone: installs the package (building the C++
# extension), then trains the demo MLP through torchlite autograd.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" numpy
echo "== building torchlite (the C++ extension, about a minute on 2 cores)"
# -v shows the build's progress ([n/N] Building CXX ...) instead of a silent minute
python -m pip install -v -e . --no-build-isolation 2>&1 | grep -E "\[[0-9]+/[0-9]+\]|Successfully installed|rror" || true
python -c "import torchlite" || { echo "error: the package did not build (rerun: python -m pip install -v -e .)" >&2; exit 1; }
python -m torchlite demo "$@"

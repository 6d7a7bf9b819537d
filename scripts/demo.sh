#!/usr/bin/env bash
# The main job from a clean clone: installs the package (building the C++
# extension), then trains the demo MLP through torchlite autograd.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" numpy
python -m pip install -q -e . --no-build-isolation
python -m torchlite demo "$@"

#!/usr/bin/env bash
# Regenerates torchlite/_generated/ and csrc/autograd/generated/{NativeFormulas.*,python_functions.cpp,
# python_fast_functions.cpp}
# from tools/autograd/derivatives.yaml and native_functions.yaml. `--check` fails instead of writing
# when a generated file is out of date (CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
python tools/autograd/gen_autograd.py "$@"

#!/usr/bin/env bash
# The static checks CI runs, at pinned versions (another release finds or formats differently):
# ruff (pyproject.toml's [tool.ruff]), mypy on torchlite/ ([tool.mypy]) and the C++ format
# (.clang-format, through scripts/format.sh --check), after checking that the generated files match
# the op tables (scripts/regen.sh --check). Runs all of them, then fails if one failed.
#   TORCHLITE_PYTHON   the interpreter to install them into and run them with (default python)
set -euo pipefail
cd "$(dirname "$0")/.."

RUFF_VERSION=0.17.6
MYPY_VERSION=2.4.0
CLANG_FORMAT_VERSION="$(sed -n 's/^CLANG_FORMAT_VERSION=//p' scripts/format.sh)"
py="${TORCHLITE_PYTHON:-python}"

"$py" -m pip install -q "ruff==$RUFF_VERSION" "mypy==$MYPY_VERSION" "clang-format==$CLANG_FORMAT_VERSION"
bin="$("$py" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"

failed=()
echo "== generated files (scripts/regen.sh --check)"
bash scripts/regen.sh --check || failed+=(regen)
echo "== ruff $RUFF_VERSION"
"$py" -m ruff check --output-format concise . || failed+=(ruff)
echo "== mypy $MYPY_VERSION"
"$py" -m mypy || failed+=(mypy)
echo "== clang-format $CLANG_FORMAT_VERSION"
CLANG_FORMAT="$bin/clang-format" bash scripts/format.sh --check || failed+=(clang-format)
if [ "${#failed[@]}" != 0 ]; then
  echo "lint: ${failed[*]} failed" >&2
  exit 1
fi
echo "lint: regen, ruff, mypy and clang-format pass"

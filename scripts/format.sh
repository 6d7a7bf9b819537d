#!/usr/bin/env bash
# Formats the C++ sources (csrc/, tests/cpp/) in place with .clang-format, or with --check
# lists the files it would change and exits 1 if there is one. The version is pinned: another
# clang-format release formats differently.
#   CLANG_FORMAT   the binary (default clang-format; it must be the pinned version)
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT_VERSION=23.1.5
clang_format="${CLANG_FORMAT:-clang-format}"
if ! "$clang_format" --version 2>/dev/null | grep -q "version $CLANG_FORMAT_VERSION"; then
  echo "error: needs clang-format $CLANG_FORMAT_VERSION (pip install clang-format==$CLANG_FORMAT_VERSION)" >&2
  exit 2
fi

mapfile -t files < <(git ls-files 'csrc/*.cpp' 'csrc/*.h' 'csrc/*.cu' 'csrc/*.cuh' \
  'tests/cpp/*.cpp' 'tests/cpp/*.h' 'tests/cpp/*.cu')
case "${1:-}" in
  --check)
    # One run over all files; each difference is reported as "FILE:LINE:COL: error: ...".
    mapfile -t changed < <("$clang_format" --dry-run --Werror "${files[@]}" 2>&1 |
      sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
    if [ "${#changed[@]}" != 0 ]; then printf 'would reformat %s\n' "${changed[@]}"; fi
    echo "clang-format: ${#changed[@]} of ${#files[@]} files would change"
    [ "${#changed[@]}" = 0 ]
    ;;
  "")
    "$clang_format" -i "${files[@]}"
    ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

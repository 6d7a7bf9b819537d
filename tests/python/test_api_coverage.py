"""docs/api_coverage.md is what tools/api_coverage.py generates from the op table, torchlite and
torch 2.13 (the oracle)."""
import importlib.util
import os
import re

import pytest

from diff_utils import import_torch

torch = import_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_api_coverage_is_up_to_date():
    with open(os.path.join(ROOT, "docs", "api_coverage.md")) as f:
        built_for = re.search(r"^torch (\S+)'s public names", f.read(), re.M).group(1)
    if torch.__version__ != built_for:
        # a CUDA build of torch (the other CI Pythons' PyPI wheel) has more torch.cuda names
        pytest.skip(f"docs/api_coverage.md lists torch {built_for}'s names; this is torch {torch.__version__}")
    spec = importlib.util.spec_from_file_location("api_coverage", os.path.join(ROOT, "tools", "api_coverage.py"))
    api_coverage = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api_coverage)
    with open(os.path.join(ROOT, "docs", "api_coverage.md")) as f:
        assert f.read() == api_coverage.generate(), "docs/api_coverage.md is stale: run python tools/api_coverage.py"

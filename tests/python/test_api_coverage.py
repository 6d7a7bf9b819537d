"""docs/api_coverage.md is what tools/api_coverage.py generates from the op table, torchlite and
torch 2.13 (the oracle)."""
import importlib.util
import os

import pytest

from diff_utils import import_torch

torch = import_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_api_coverage_is_up_to_date():
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"docs/api_coverage.md lists torch 2.13's names; this is torch {torch.__version__}")
    spec = importlib.util.spec_from_file_location("api_coverage", os.path.join(ROOT, "tools", "api_coverage.py"))
    api_coverage = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api_coverage)
    with open(os.path.join(ROOT, "docs", "api_coverage.md")) as f:
        assert f.read() == api_coverage.generate(), "docs/api_coverage.md is stale: run python tools/api_coverage.py"

"""torchlite.__version__ (as torch.__version__) is the version the package is built with:
torchlite/version.py is its one source, which pyproject.toml reads through scikit-build-core.
And torchlite.__all__ (as torch's) names the public API."""
import os
import re

from scikit_build_core.build import prepare_metadata_for_build_wheel

import torchlite
import torchlite.version

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_version_is_a_release_string():
    assert torchlite.__version__ is torchlite.version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", torchlite.__version__)


def test_wheel_metadata_has_the_version(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    dist_info = prepare_metadata_for_build_wheel(str(tmp_path))
    assert dist_info == f"torchlite-{torchlite.__version__}.dist-info"
    with open(tmp_path / dist_info / "METADATA") as f:
        assert f"\nVersion: {torchlite.__version__}\n" in f.read()


def test_all_lists_the_public_names():
    public = {name for name in vars(torchlite) if not name.startswith("_") and name != "version"}
    assert sorted(torchlite.__all__) == sorted(public)

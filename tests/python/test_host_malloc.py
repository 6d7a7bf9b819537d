"""Note [Keeping the step's large buffers]: torchlite._C fixes glibc's mmap and trim thresholds at
import unless the user set them, so a loop that frees and reallocates the same large buffers keeps
them in the heap instead of faulting fresh pages in every round. Each case runs in a fresh process:
the thresholds are process-wide and set once."""
import json
import os
import platform
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")

# 24 tensors of 1 MiB made and freed together, 20 rounds: the minor page faults of the last 15
_PROBE = """
import json, resource, sys
import numpy as np
import torchlite
x = torchlite.ones(1 << 18)
faults = []
for i in range(20):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    ys = [x * float(k) for k in range(24)]
    assert float(ys[3][7]) == 3.0
    del ys
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(json.dumps({"state": list(torchlite._C._host_malloc_tuning()), "faults": faults[5:]}))
"""


def _probe(**env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("MALLOC_") and k not in ("GLIBC_TUNABLES", "TORCHLITE_MALLOC_TUNING")}
    base["PYTHONPATH"] = ROOT + os.pathsep + base.get("PYTHONPATH", "")
    base.update(env)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=base, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tuned_by_default_and_buffers_stay():
    res = _probe()
    assert res["state"] == [True, "applied", 32 << 20, 64 << 20]
    # 24 MiB a round is 6,144 pages; kept in the heap, a round faults almost none of them
    assert max(res["faults"]) < 200, res["faults"]


def test_opt_out_leaves_glibc_defaults():
    res = _probe(TORCHLITE_MALLOC_TUNING="0")
    assert res["state"][:2] == [False, "TORCHLITE_MALLOC_TUNING=0"]
    # glibc's defaults hand the freed 24 MiB back every round: the pages fault in again
    assert min(res["faults"]) > 3000, res["faults"]


@pytest.mark.parametrize("env", [{"MALLOC_TRIM_THRESHOLD_": "1048576"},
                                 {"MALLOC_MMAP_THRESHOLD_": "262144"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1048576"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=262144"}])
def test_users_settings_win(env):
    res = _probe(**env)
    assert res["state"][:2] == [False, "the environment sets malloc's thresholds"]


def test_other_tunables_do_not_count():
    res = _probe(GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
    assert res["state"][:2] == [True, "applied"]

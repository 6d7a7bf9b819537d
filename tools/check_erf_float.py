"""Checks torchlite's float32 erf (csrc/aten/native/cpu/ErfFloat.cpp, Note [Fast float erf with an
exact fallback]) against rounding libm's double erf over every float32 bit pattern, in blocks of
2^24 (a multiple of 8: each value goes through the widest vector loop the CPU has). Takes minutes;
run it (nice -n 19 python tools/check_erf_float.py) after any change to the erf loops. Prints the
mismatches and their count; exits 1 if there is any."""
import sys
import time

import numpy as np

from torchlite import _C


def main():
    block = 1 << 24
    mismatches = 0
    start = time.time()
    for first in range(0, 1 << 32, block):
        x = np.arange(first, first + block, dtype=np.uint64).astype(np.uint32).view(np.float32)
        fast = _C._erf_float32_host(x)
        with np.errstate(invalid="ignore"):
            exact = _C._erf_host(x.astype(np.float64), False).astype(np.float32)
        nan = np.isnan(exact)
        bad = (np.isnan(fast) != nan) | (~nan & (fast.view(np.uint32) != exact.view(np.uint32)))
        if bad.any():
            idx = np.flatnonzero(bad)
            mismatches += idx.size
            for i in idx[:5]:
                print(f"mismatch at {x[i].view(np.uint32):#010x} ({x[i]!r}): {fast[i]!r} against {exact[i]!r}")
        if first % (1 << 28) == 0:
            print(f"{first >> 24}/256 blocks, {mismatches} mismatches, {time.time() - start:.0f} s", flush=True)
    print(f"all 2^32 float32 bit patterns: {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

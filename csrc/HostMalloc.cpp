// The C library's malloc settings for torchlite's host buffers (torchlite-specific: upstream's CPU
// tensors come from c10's allocator, c10/core/impl/alloc_cpu.cpp, where torch leaves glibc's
// defaults too and its tuning guide suggests a caching malloc such as jemalloc instead).
//
// Note [Keeping the step's large buffers]
// A CPU tensor's buffer is a numpy array's, which numpy takes from malloc. glibc serves a block of
// at least M_MMAP_THRESHOLD bytes with a fresh mmap and gives it back to the kernel on free (the
// threshold starts at 128 KiB and only creeps up as such blocks are freed), and gives back the free
// memory at the heap's top once more than M_TRIM_THRESHOLD of it gathers (twice the mmap threshold
// while that one moves).
// A training step allocates its activations, temporaries and gradients and frees them again in the
// same sizes every step, so with those defaults each step maps its buffers afresh and the kernel
// zero-fills every page on first touch: about 5,500 page faults and 12 ms of kernel time in each of
// bench/models.py's GPT steps (90 ms), 3,100 in each CNN step. Fixing the mmap threshold at glibc's
// own ceiling (32 MiB on 64-bit, where the dynamic threshold would end anyway) and the trim
// threshold at 64 MiB keeps those blocks in the heap from one step to the next: a few faults a step.
// What it costs: up to 64 MiB of freed memory stays with the process instead of going back at once.
// Settings the user gave (MALLOC_*_ or GLIBC_TUNABLES' glibc.malloc.*) win; TORCHLITE_MALLOC_TUNING=0
// leaves glibc's defaults. Only the Python module does this: the C++ library leaves its host
// program's malloc alone.
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <cstring>
#include <string>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace torch {
namespace {

constexpr int kMmapThreshold = 32 << 20;
constexpr int kTrimThreshold = 64 << 20;

struct HostMallocState {
  bool applied = false;
  std::string reason;
};

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

HostMallocState tune_host_malloc() {
  HostMallocState s;
#ifdef __GLIBC__
  const char* opt = std::getenv("TORCHLITE_MALLOC_TUNING");
  if (opt != nullptr && std::strcmp(opt, "0") == 0) {
    s.reason = "TORCHLITE_MALLOC_TUNING=0";
    return s;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (env_set("MALLOC_MMAP_THRESHOLD_") || env_set("MALLOC_TRIM_THRESHOLD_") ||
      (tunables != nullptr &&
       (std::strstr(tunables, "glibc.malloc.mmap_threshold") != nullptr ||
        std::strstr(tunables, "glibc.malloc.trim_threshold") != nullptr))) {
    s.reason = "the environment sets malloc's thresholds";
    return s;
  }
  s.applied = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
  s.reason = s.applied ? "applied" : "mallopt refused";
#else
  s.reason = "not glibc";
#endif
  return s;
}

} // namespace

void initHostMallocBindings(pybind11::module_& m) {
  static const HostMallocState state = tune_host_malloc();
  // (applied, why, mmap threshold, trim threshold): what import did, for tests and bug reports
  m.def("_host_malloc_tuning", [] {
    return pybind11::make_tuple(state.applied, state.reason, kMmapThreshold, kTrimThreshold);
  });
}

} // namespace torch

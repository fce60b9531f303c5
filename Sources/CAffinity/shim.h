#ifndef TAPEDECK_CAFFINITY_SHIM_H
#define TAPEDECK_CAFFINITY_SHIM_H

// Thread CPU affinity for CPUPinning.swift. glibc declares these only under _GNU_SOURCE, which
// the Glibc module Swift imports is built without, so they are declared here. The mask is
// handled as 1,024 bits (glibc's cpu_set_t) in 16 words.
#ifdef __linux__
#include <stdint.h>

extern int sched_getcpu(void);
extern int sched_getaffinity(int pid, unsigned long size, void *mask);
extern int sched_setaffinity(int pid, unsigned long size, const void *mask);

enum { TAPEDECK_CPU_WORDS = 16 };

/// The CPU the calling thread runs on now, or -1.
static inline int tapedeck_current_cpu(void) {
    return sched_getcpu();
}

/// The number of the `n`-th CPU (from 0) the calling thread may run on, or -1 when there are
/// fewer (or the set cannot be read). `n` < 0 asks for the count instead.
static inline int tapedeck_allowed_cpu(int n) {
    uint64_t mask[TAPEDECK_CPU_WORDS] = {0};
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return -1;
    int seen = 0;
    for (int cpu = 0; cpu < TAPEDECK_CPU_WORDS * 64; cpu++) {
        if (mask[cpu / 64] & ((uint64_t)1 << (cpu % 64))) {
            if (seen == n) return cpu;
            seen++;
        }
    }
    return n < 0 ? seen : -1;
}

/// Lets thread `tid` (0: the caller) run on `cpu` only. 0 on success, -1 with errno set.
static inline int tapedeck_pin_thread(int tid, int cpu) {
    uint64_t mask[TAPEDECK_CPU_WORDS] = {0};
    if (cpu < 0 || cpu >= TAPEDECK_CPU_WORDS * 64) return -1;
    mask[cpu / 64] = (uint64_t)1 << (cpu % 64);
    return sched_setaffinity(tid, sizeof mask, mask);
}

/// Reads the calling thread's CPU set into `mask` (TAPEDECK_CPU_WORDS words). 0 on success.
static inline int tapedeck_get_cpus(uint64_t *mask) {
    return sched_getaffinity(0, TAPEDECK_CPU_WORDS * sizeof(uint64_t), mask);
}

/// Lets thread `tid` run on the CPUs of `mask` (as read by tapedeck_get_cpus). 0 on success.
static inline int tapedeck_set_cpus(int tid, const uint64_t *mask) {
    return sched_setaffinity(tid, TAPEDECK_CPU_WORDS * sizeof(uint64_t), mask);
}
#endif

#endif

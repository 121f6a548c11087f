#define _GNU_SOURCE
#include "clinux.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (sched_setattr(2)); glibc 2.36 declares neither it nor a wrapper. */
struct clinux_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};

/* SCHED_FLAG_UTIL_CLAMP_MIN | SCHED_FLAG_UTIL_CLAMP_MAX: left out, so the clamps are not set again. */
#define CLINUX_SCHED_FLAG_UTIL_CLAMP 0x60

static int get_attr(int tid, struct clinux_sched_attr *attr) {
    memset(attr, 0, sizeof *attr);
    return (int)syscall(SYS_sched_getattr, tid, attr, (unsigned int)sizeof *attr, 0u);
}

int clinux_request_slice(unsigned long long nanoseconds) {
    struct clinux_sched_attr attr;
    if (get_attr(0, &attr) != 0) return errno;
    if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH) return 0;
    attr.size = sizeof attr;
    attr.sched_flags &= ~(uint64_t)CLINUX_SCHED_FLAG_UTIL_CLAMP;
    attr.sched_runtime = nanoseconds;
    return syscall(SYS_sched_setattr, 0, &attr, 0u) == 0 ? 0 : errno;
}

long long clinux_thread_slice(int tid) {
    struct clinux_sched_attr attr;
    if (get_attr(tid, &attr) != 0) return -(long long)errno;
    return (long long)attr.sched_runtime;
}

#ifndef SCHEMEBRIDGE_CLINUX_KERNEL_COPY_H
#define SCHEMEBRIDGE_CLINUX_KERNEL_COPY_H

#include <sys/types.h>

/*
 * The kernel's in-place copies, which glibc declares only under _GNU_SOURCE (which Swift's Glibc
 * module does not define). Memfds and their seals: clinux.h.
 */

/* copy_file_range(2) with flags 0: bytes copied, 0 at the end, or -1 and errno. `in_offset`
 * NULL uses (and advances) the input's file position. */
long clinux_copy_file_range(int in_fd, long long *in_offset, int out_fd, unsigned long length);

/* splice(2) with flags 0 (one end must be a pipe; `in_offset` NULL for a pipe). */
long clinux_splice(int in_fd, long long *in_offset, int out_fd, unsigned long length);

#endif

#ifndef SCHEMEBRIDGE_CLINUX_FD_H
#define SCHEMEBRIDGE_CLINUX_FD_H

#include <sys/types.h>

/*
 * Descriptor primitives that glibc declares only under _GNU_SOURCE (which Swift's Glibc module
 * does not define): sealable memfds and the kernel's in-place copies.
 */

/* memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); a descriptor, or -1 and errno. */
int clinux_memfd_create_sealable(const char *name);

/* Adds F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL to a memfd: its content can
 * never change again, and no seal can be added or removed. 0, or -1 and errno (EBUSY while a
 * writable shared mapping exists). */
int clinux_seal_contents(int fd);

/* copy_file_range(2) with flags 0: bytes copied, 0 at the end, or -1 and errno. `in_offset`
 * NULL uses (and advances) the input's file position. */
long clinux_copy_file_range(int in_fd, long long *in_offset, int out_fd, unsigned long length);

/* splice(2) with flags 0 (one end must be a pipe; `in_offset` NULL for a pipe). */
long clinux_splice(int in_fd, long long *in_offset, int out_fd, unsigned long length);

#endif

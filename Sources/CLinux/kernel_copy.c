#define _GNU_SOURCE
#include "clinux_fd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int clinux_memfd_create_sealable(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int clinux_seal_contents(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
}

long clinux_copy_file_range(int in_fd, long long *in_offset, int out_fd, unsigned long length) {
    loff_t offset = in_offset ? (loff_t)*in_offset : 0;
    ssize_t n = copy_file_range(in_fd, in_offset ? &offset : NULL, out_fd, NULL, length, 0);
    if (in_offset) *in_offset = (long long)offset;
    return (long)n;
}

long clinux_splice(int in_fd, long long *in_offset, int out_fd, unsigned long length) {
    loff_t offset = in_offset ? (loff_t)*in_offset : 0;
    ssize_t n = splice(in_fd, in_offset ? &offset : NULL, out_fd, NULL, length, 0);
    if (in_offset) *in_offset = (long long)offset;
    return (long)n;
}

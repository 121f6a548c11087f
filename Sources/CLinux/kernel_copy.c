#define _GNU_SOURCE
#include "clinux_kernel_copy.h"

#include <fcntl.h>
#include <unistd.h>

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

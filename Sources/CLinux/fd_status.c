#define _GNU_SOURCE
#include "clinux.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

int clinux_fd_status(int fd, unsigned long long *mount_id, struct stat *st) {
    struct statx sx;
    unsigned int want = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | STATX_INO | STATX_SIZE | STATX_MNT_ID;
    if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, want, &sx) != 0) return -1;
    if ((sx.stx_mask & (STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID)) != (STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID)) {
        errno = ENOSYS;
        return -1;
    }
    memset(st, 0, sizeof *st);
    st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    st->st_ino = sx.stx_ino;
    st->st_mode = sx.stx_mode;
    st->st_nlink = sx.stx_nlink;
    st->st_uid = sx.stx_uid;
    st->st_gid = sx.stx_gid;
    st->st_size = (off_t)sx.stx_size;
    st->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
    *mount_id = sx.stx_mnt_id;
    return 0;
}

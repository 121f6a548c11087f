#define _GNU_SOURCE
#include "clinux.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/fs.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int clinux_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdout_fd, int stderr_fd, pid_t *pid) {
    return clinux_spawn_io(path, argv, envp, cwd, -1, stdout_fd, stderr_fd, 1, pid);
}

static void redirect(posix_spawn_file_actions_t *actions, int fd, int target, int flags) {
    if (fd >= 0) posix_spawn_file_actions_adddup2(actions, fd, target);
    else posix_spawn_file_actions_addopen(actions, target, "/dev/null", flags, 0);
}

int clinux_spawn_io(const char *path, char *const argv[], char *const envp[], const char *cwd,
                    int stdin_fd, int stdout_fd, int stderr_fd, int new_session, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc;
    if ((rc = posix_spawn_file_actions_init(&actions)) != 0) return rc;
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    redirect(&actions, stdin_fd, 0, O_RDONLY);
    redirect(&actions, stdout_fd, 1, O_WRONLY);
    redirect(&actions, stderr_fd, 2, O_WRONLY);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (cwd) posix_spawn_file_actions_addchdir_np(&actions, cwd);

    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (new_session) flags |= POSIX_SPAWN_SETSID;
    posix_spawnattr_setflags(&attr, flags);

    rc = posix_spawn(pid, path, &actions, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

int clinux_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int clinux_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int clinux_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int clinux_epoll_add(int epfd, int fd) {
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int clinux_epoll_wait_fds(int epfd, int *fds, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) fds[i] = events[i].data.fd;
    return n;
}

int clinux_reap(pid_t pid, int *code) {
    int status = 0;
    pid_t r;
    do { r = waitpid(pid, &status, WNOHANG); } while (r < 0 && errno == EINTR);
    if (r > 0) {
        if (WIFEXITED(status)) *code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status)) *code = 128 + WTERMSIG(status);
        else *code = -1;
    }
    return (int)r;
}

void clinux_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

int clinux_rename_exchange(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 ? 0 : errno;
}

int clinux_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0 ? 0 : errno;
}

long clinux_getrandom(void *buf, unsigned long length) {
    return (long)getrandom(buf, length, 0);
}

int clinux_memfd(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int clinux_seal(int fd) {
    /* F_SEAL_WRITE fails with EBUSY while a page of the file is referenced from elsewhere; the
     * kernel waits ~150 ms for such references to go. The kernel's own memory management (a
     * reclaim or an access monitor such as DAMON holding a page at that moment) can outlast it
     * though nothing maps the file (seen once, sealing 1 GiB in `make bench`). A few more tries. */
    for (int tries = 1;; tries++) {
        int r = fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        if (r == 0 || errno != EBUSY || tries == 4) return r;
    }
}

int clinux_is_sealed(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) return errno == EBADF ? -1 : 0;
    int needed = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW;
    return (seals & needed) == needed ? 1 : 0;
}

int clinux_reflink_range(int dst, int src, long long length) {
    if (length <= 0) { errno = EINVAL; return -1; }  /* 0 would mean "to the end" */
    struct file_clone_range range = { .src_fd = src, .src_offset = 0, .src_length = (__u64)length, .dest_offset = 0 };
    return ioctl(dst, FICLONERANGE, &range);
}

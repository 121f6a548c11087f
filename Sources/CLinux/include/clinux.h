#ifndef SCHEMEBRIDGE_CLINUX_H
#define SCHEMEBRIDGE_CLINUX_H

#include <sys/types.h>
#include <sys/eventfd.h>
#include <sys/stat.h>

/*
 * Spawns `path` with `argv` and `envp` directly (never through a shell): an empty signal
 * mask and default signal dispositions, a new session (setsid), stdin/stdout/stderr from
 * the given descriptors (-1: /dev/null), working directory `cwd` (NULL: inherit).
 * Returns 0 and sets *pid, or an errno value (an exec failure such as ENOENT or EACCES is
 * reported here, because glibc's posix_spawn waits for the exec).
 */
int clinux_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdout_fd, int stderr_fd, pid_t *pid);

/*
 * The general form: stdin/stdout/stderr from the given descriptors (-1: /dev/null), a new
 * session only when `new_session` is non-zero. Every other descriptor is closed in the child
 * (closefrom 3), so no child ever holds a file of ours open (a script being written would
 * otherwise fail to exec with ETXTBSY).
 */
int clinux_spawn_io(const char *path, char *const argv[], char *const envp[], const char *cwd,
                    int stdin_fd, int stdout_fd, int stderr_fd, int new_session, pid_t *pid);

/* pidfd_open(2): a descriptor that becomes readable when the process exits; -1 and errno on failure. */
int clinux_pidfd_open(pid_t pid);

/* pidfd_send_signal(2): signals the process `pidfd` refers to, never another that reused its pid;
 * 0, or -1 and errno (ESRCH once it has been reaped). */
int clinux_pidfd_send_signal(int pidfd, int sig);

/* An epoll set for the child reaper (close-on-exec); -1 and errno on failure. */
int clinux_epoll_create(void);

/* Adds `fd` to epoll set `epfd`, readable (level-triggered); 0, or -1 and errno. Safe from any
 * thread while another waits: no wake-up of the waiter is needed. */
int clinux_epoll_add(int epfd, int fd);

/* Waits up to `timeout_ms` (-1: forever) and stores the ready descriptors (at most `max`) in
 * `fds`; their count, or -1 and errno (EINTR). */
int clinux_epoll_wait_fds(int epfd, int *fds, int max, int timeout_ms);

/* waitpid(pid, WNOHANG); returns pid when reaped (status in *code as "exit code or 128+signal"),
 * 0 when still running, -1 on error. */
int clinux_reap(pid_t pid, int *code);

/* renameat2(RENAME_EXCHANGE): swaps two paths atomically. 0, or an errno value. */
int clinux_rename_exchange(const char *a, const char *b);

/* renameat2(RENAME_NOREPLACE): renames unless the target exists (EEXIST). 0, or an errno value. */
int clinux_rename_noreplace(const char *from, const char *to);

/* getrandom(2): fills buf with bytes from the kernel's CSPRNG. Bytes written, or -1 (errno set). */
long clinux_getrandom(void *buf, unsigned long length);

/* Names the calling thread (visible in top, gdb, perf and /proc; 15 bytes are kept). */
void clinux_set_thread_name(const char *name);

/* memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): an anonymous file that can be sealed;
 * -1 and errno on failure. */
int clinux_memfd(const char *name);

/* Seals `fd` against writes, growing and shrinking, and against further sealing
 * (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), trying again (up to four times in
 * all) when the kernel answers EBUSY: a page still referenced by its own memory management.
 * 0, or -1 and errno. */
int clinux_seal(int fd);

/* Whether `fd` is sealed so that its content can never change again (F_SEAL_WRITE, F_SEAL_SHRINK
 * and F_SEAL_GROW all set): 1 yes, 0 no (or not sealable), -1 and errno on a bad descriptor. */
int clinux_is_sealed(int fd);

/* ioctl(dst, FICLONERANGE): makes the start of `dst` share the blocks of `src`'s first `length`
 * bytes (a reflink, copy on write) where the file system supports it — exactly that range, never
 * more (a length that is not block-aligned is refused with EINVAL unless it ends at `src`'s end).
 * 0, or -1 and errno (EOPNOTSUPP, EXDEV, EINVAL where it cannot). */
int clinux_reflink_range(int dst, int src, long long length);

/* statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC): the descriptor's status as fstat(2) gives
 * it (device, inode, mode, links, owner, size; the times left 0) and the id of the mount its file
 * is on (as /proc/self/fdinfo's mnt_id), in one call. "Don't sync": a file system that honours it
 * (FUSE, NFS, CIFS, Ceph, overlay over them) answers from what it has, never asking its server.
 * 0, or -1 and errno (ENOSYS when the kernel gave no mount id). */
int clinux_fd_status(int fd, unsigned long long *mount_id, struct stat *st);

/* How many functions the list names: those a service's D-Bus loop runs for a message
 * (Sources/CLinux/hot_code_names.c, written by scripts/link/hot-code.sh from a profile). */
unsigned long clinux_hot_code_listed(void);

/* Finds the listed functions in this program's own symbol table (/proc/self/exe) and keeps their
 * cache lines for clinux_hot_code_prefetch (once; a later call does nothing). Reads the symbol
 * table: tens of milliseconds, for a thread of its own. The lines kept (at most 16384), or -errno
 * (none: a program without a symbol table, say). */
long clinux_hot_code_load(void);

/* Asks the caches for the lines clinux_hot_code_load kept (prefetches: nothing waits for them)
 * when the loop was idle for clinux_hot_code_idle_ns (0.5 ms) or more since it last called this
 * (other programs ran: the code is likely out of the caches); nothing before the load, when none
 * were found, or for a wake right after another. Loop thread only. */
void clinux_hot_code_prefetch(void);

/* How long the loop must have been idle for clinux_hot_code_prefetch to prefetch. */
extern const long long clinux_hot_code_idle_ns;

/* Asks the kernel to run the calling thread in slices of `nanoseconds` (sched_setattr's
 * sched_runtime for a SCHED_OTHER or SCHED_BATCH thread, Linux 6.12 and later; 0: the kernel's
 * default): a shorter slice gets an earlier deadline, so the thread runs sooner when woken beside
 * busier ones, without more CPU in all. The thread's policy, nice value and flags are kept; a
 * thread under another policy is left as it is. The kernel keeps the slice within 0.1-100 ms.
 * 0, or an errno. What the thread has now: clinux_thread_slice. */
int clinux_request_slice(unsigned long long nanoseconds);

/* The slice the kernel holds for thread `tid` (0: the caller) in nanoseconds — its default unless
 * one was asked for; 0 from a kernel before 6.12 —, or -errno. */
long long clinux_thread_slice(int tid);

#endif

/* make bench: pasteboard hand-off (issue 14). Two processes of two apps, a writer and a reader,
 * hand the same bytes over four ways, interleaved round by round in rotating order:
 *
 *   pasteboard  the writer makes a memfd with the data, seals it, SetItems([{TYPE: h}]) on its
 *               pasteboard, and tells the reader with a small message over the bus; the reader
 *               calls Read(0, TYPE) and reads all bytes from the descriptor it gets. Seed 001's
 *               flow: each hand-off has a pasteboard of its own, created (unique name) and
 *               granted to the reader's app before it and deleted after it, untimed — so no
 *               hand-off pays for freeing an earlier one's data, as none does on the direct paths.
 *   dbus_fd     the baseline: the same sealed memfd sent to the reader in one message (`h`) over
 *               the same bus — what two apps on the session bus can do without the broker.
 *   socket_fd   a floor: the same memfd over a Unix socket the two already share (SCM_RIGHTS).
 *   dbus_bytes  the bytes themselves as `ay` in one message over the bus (only up to the largest
 *               array a D-Bus message may carry, 64 MiB; "n/a" beyond).
 *
 * A hand-off's time runs from the writer's memfd_create (for `ay`: building the message) to the
 * moment the reader has read every byte (CLOCK_MONOTONIC, one clock for both processes). Every
 * descriptor is read the same way: fstat, mmap (MAP_POPULATE), a 64-bit sum over every byte —
 * the hand-off ends there; munmap and close follow, untimed (on the direct paths the reader's
 * close frees the data). `ay` is summed in place. The writer checks each sum and the round's stamp.
 *
 *   pasteboard-bench writer ADDR READER_PROGRAM READER_APP_ID "SIZES" "ROUNDS"
 *       the measuring side (prints one JSON object). READER_PROGRAM is started with
 *       `reader ADDR` and two sockets (fds 3 and 4). SIZES in bytes; ROUNDS per size.
 *       The service's VmHWM is reset (clear_refs 5) before the largest size's rounds and read
 *       after them.
 */
#include "bench-common.h"
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PEER_IFACE "io.github.schemebridge.BenchPeer"
#define TYPE "application/octet-stream"
#define CHUNK (1 << 20)
#define MAX_ARRAY (64u << 20) /* DBUS_MAXIMUM_ARRAY_LENGTH: the largest `ay` a message may hold */

enum { PASTEBOARD, DBUS_FD, SOCKET_FD, DBUS_BYTES, VARIANTS };
static const char *VARIANT_NAME[VARIANTS] = {"pasteboard", "dbus_fd", "socket_fd", "dbus_bytes"};

/* ---- control messages (SOCK_SEQPACKET between writer and reader, never timed) ---- */

typedef struct {
    int variant;          /* -1: quit */
    uint64_t size, stamp;
    char path[200];       /* the pasteboard's object path */
} Command;

typedef struct {
    double received_us;   /* the notification / descriptor / bytes arrived */
    double opened_us;     /* pasteboard: Read returned the descriptor */
    double done_us;       /* every byte read */
    uint64_t sum, first, last, size;
    char error[240];
} Result;

/* ---- reading: the same for every variant ---- */

static void consume(const uint8_t *p, uint64_t n, Result *r) {
    r->size = n;
    r->sum = sum64(p, n);
    memcpy(&r->first, p, 8);
    memcpy(&r->last, p + n - 8, 8);
}

/* Reads every byte of `fd` (mmap), notes the time, then unmaps and closes it: freeing the data
 * (the reader's close is the last reference on the direct paths, not through the service) is
 * not part of the hand-off. */
static void consume_fd(int fd, Result *r) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 16) { snprintf(r->error, sizeof r->error, "bad descriptor (size %lld)", (long long)st.st_size); close(fd); return; }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) { snprintf(r->error, sizeof r->error, "mmap: %s", strerror(errno)); close(fd); return; }
    consume(m, (uint64_t)st.st_size, r);
    r->done_us = now_us();
    munmap(m, (size_t)st.st_size);
    close(fd);
}

/* ---- the reader ---- */

/* The next message on `c` that is a call of `member` on the peer interface (others dropped:
 * the pasteboard's Changed signals, NameAcquired). */
static DBusMessage *next_peer_call(DBusConnection *c, const char *member) {
    for (;;) {
        DBusMessage *m = dbus_connection_pop_message(c);
        if (!m) {
            if (!dbus_connection_read_write(c, -1)) die("reader", "disconnected");
            continue;
        }
        if (dbus_message_is_method_call(m, PEER_IFACE, member)) return m;
        dbus_message_unref(m);
    }
}

static int reader(const char *address) {
    int control = 3, data = 4;
    DBusConnection *c = connect_bus(address);
    char name[256] = {0};
    snprintf(name, sizeof name, "%s", dbus_bus_get_unique_name(c));
    send_all(control, name, sizeof name);
    for (;;) {
        Command cmd;
        recv_all(control, &cmd, sizeof cmd);
        if (cmd.variant < 0) break;
        Result r;
        memset(&r, 0, sizeof r);
        char ready = 1;
        send_all(control, &ready, 1);
        switch (cmd.variant) {
        case PASTEBOARD: {
            DBusMessage *note = next_peer_call(c, "Ready");
            r.received_us = now_us();
            dbus_message_unref(note);
            DBusMessage *m = dbus_message_new_method_call(SB_NAME, cmd.path, PB_IFACE, "Read");
            dbus_uint32_t item = 0;
            const char *type = TYPE;
            dbus_message_append_args(m, DBUS_TYPE_UINT32, &item, DBUS_TYPE_STRING, &type, DBUS_TYPE_INVALID);
            DBusError err;
            dbus_error_init(&err);
            DBusMessage *reply = dbus_connection_send_with_reply_and_block(c, m, 60000, &err);
            dbus_message_unref(m);
            int fd = -1;
            if (!reply || !dbus_message_get_args(reply, &err, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID)) {
                snprintf(r.error, sizeof r.error, "Read: %s: %s", err.name ? err.name : "?", err.message ? err.message : "no descriptor");
                dbus_error_free(&err);
                if (reply) dbus_message_unref(reply);
                break;
            }
            dbus_message_unref(reply);
            r.opened_us = now_us();
            consume_fd(fd, &r);
            break;
        }
        case DBUS_FD: {
            DBusMessage *m = next_peer_call(c, "TakeFD");
            r.received_us = now_us();
            int fd = -1;
            if (!dbus_message_get_args(m, NULL, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID)) snprintf(r.error, sizeof r.error, "TakeFD without a descriptor");
            dbus_message_unref(m);
            r.opened_us = r.received_us;
            if (fd >= 0) consume_fd(fd, &r);
            break;
        }
        case SOCKET_FD: {
            char byte;
            union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
            struct iovec iov = {&byte, 1};
            struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
            ssize_t n;
            while ((n = recvmsg(data, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
            r.received_us = r.opened_us = now_us();
            struct cmsghdr *cm = n == 1 ? CMSG_FIRSTHDR(&mh) : NULL;
            if (!cm || cm->cmsg_type != SCM_RIGHTS) { snprintf(r.error, sizeof r.error, "no descriptor on the socket"); break; }
            int fd;
            memcpy(&fd, CMSG_DATA(cm), sizeof fd);
            consume_fd(fd, &r);
            break;
        }
        case DBUS_BYTES: {
            DBusMessage *m = next_peer_call(c, "TakeBytes");
            r.received_us = r.opened_us = now_us();
            const uint8_t *p = NULL;
            int n = 0;
            if (!dbus_message_get_args(m, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &p, &n, DBUS_TYPE_INVALID) || n < 16)
                snprintf(r.error, sizeof r.error, "TakeBytes without the bytes");
            else
                consume(p, (uint64_t)n, &r);
            r.done_us = now_us();
            dbus_message_unref(m);
            break;
        }
        }
        if (!r.done_us) r.done_us = now_us();
        send_all(control, &r, sizeof r);
    }
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

/* ---- the writer ---- */

static uint8_t *pattern; /* CHUNK bytes; the data is this repeated, stamped at both ends */

/* Stamps the pattern for a hand-off of `size` bytes: the stamp is at offset 0 and size-8 of the
 * data (and so of every chunk). Returns the sum of the data. */
static uint64_t stamp_pattern(uint64_t size, uint64_t stamp) {
    uint64_t chunk = size < CHUNK ? size : CHUNK;
    memcpy(pattern, &stamp, 8);
    memcpy(pattern + chunk - 8, &stamp, 8);
    return sum64(pattern, chunk) * (size / chunk);
}

/* A sealed memfd holding the data. */
static int make_memfd(uint64_t size) {
    int fd = memfd_create("bench-data", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) die("memfd_create", strerror(errno));
    uint64_t chunk = size < CHUNK ? size : CHUNK, done = 0;
    while (done < size) {
        ssize_t n = write(fd, pattern + done % chunk, chunk - done % chunk);
        if (n < 0) { if (errno == EINTR) continue; die("write to memfd", strerror(errno)); }
        done += (uint64_t)n;
    }
    /* As the product's clinux_seal: EBUSY is a page the kernel's memory management still holds. */
    for (int tries = 1; fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0; tries++)
        if (errno != EBUSY || tries == 4) die("seal", strerror(errno));
    return fd;
}

/* A one-way call to the reader (no reply), flushed. */
static void to_peer(DBusConnection *c, DBusMessage *m) {
    dbus_message_set_no_reply(m, 1);
    if (!dbus_connection_send(c, m, NULL)) die("send", "out of memory");
    dbus_connection_flush(c);
    dbus_message_unref(m);
}

/* Drops whatever arrived for the writer (the pasteboard's Changed signals). */
static void drain(DBusConnection *c) {
    dbus_connection_read_write(c, 0);
    DBusMessage *m;
    while ((m = dbus_connection_pop_message(c))) dbus_message_unref(m);
}

static const char *reader_app; /* the app id the pasteboards are granted to */

typedef struct {
    double total, fill, setitems, notify, read, consume;
} Sample;

/* One hand-off; returns its phases (µs). */
static Sample hand_off(DBusConnection *c, const char *peer, int control, int data, int variant, uint64_t size, uint64_t stamp) {
    uint64_t expected = stamp_pattern(size, stamp);
    Command cmd = {variant, size, stamp, {0}};
    if (variant == PASTEBOARD) { /* granted to the reader's app */
        create_pasteboard(c, cmd.path, sizeof cmd.path);
        grant(c, cmd.path, reader_app);
    }
    const char *path = cmd.path;
    send_all(control, &cmd, sizeof cmd);
    char ready;
    recv_all(control, &ready, 1);
    Sample s = {0};
    double t0 = now_us(), filled = t0, sent = t0;
    switch (variant) {
    case PASTEBOARD: {
        int fd = make_memfd(size);
        filled = now_us();
        set_items(c, path, TYPE, fd);
        close(fd);
        sent = now_us();
        to_peer(c, dbus_message_new_method_call(peer, "/bench", PEER_IFACE, "Ready"));
        break;
    }
    case DBUS_FD: {
        int fd = make_memfd(size);
        filled = sent = now_us();
        DBusMessage *m = dbus_message_new_method_call(peer, "/bench", PEER_IFACE, "TakeFD");
        dbus_message_append_args(m, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID); /* libdbus keeps a dup */
        close(fd);
        to_peer(c, m);
        break;
    }
    case SOCKET_FD: {
        int fd = make_memfd(size);
        filled = sent = now_us();
        char byte = 1;
        union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
        memset(&u, 0, sizeof u);
        struct iovec iov = {&byte, 1};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof fd);
        if (sendmsg(data, &mh, MSG_NOSIGNAL) != 1) die("sendmsg", strerror(errno));
        close(fd);
        break;
    }
    case DBUS_BYTES: {
        DBusMessage *m = dbus_message_new_method_call(peer, "/bench", PEER_IFACE, "TakeBytes");
        const uint8_t *p = pattern;
        int n = (int)size;
        dbus_message_append_args(m, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &p, n, DBUS_TYPE_INVALID);
        filled = sent = now_us();
        to_peer(c, m);
        break;
    }
    }
    Result r;
    recv_all(control, &r, sizeof r);
    if (r.error[0]) die(VARIANT_NAME[variant], r.error);
    if (variant == PASTEBOARD) delete_pasteboard(c, path); /* frees the data (the reader has closed it) */
    if (r.size != size || r.sum != expected || r.first != stamp || r.last != stamp) {
        fprintf(stderr, "pasteboard-bench: %s: the reader read other bytes (size %llu of %llu, sum %llx of %llx, stamps %llu %llu of %llu)\n",
                VARIANT_NAME[variant], (unsigned long long)r.size, (unsigned long long)size, (unsigned long long)r.sum,
                (unsigned long long)expected, (unsigned long long)r.first, (unsigned long long)r.last, (unsigned long long)stamp);
        exit(1);
    }
    s.total = r.done_us - t0;
    s.fill = filled - t0;
    s.setitems = sent - filled;       /* pasteboard: the SetItems round trip */
    s.notify = r.received_us - sent;  /* the message (or descriptor) reaching the reader */
    s.read = r.opened_us - r.received_us; /* pasteboard: the Read round trip */
    s.consume = r.done_us - r.opened_us;
    drain(c);
    return s;
}

static long status_kib(long pid, const char *key) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ':') { v = atol(line + k + 1); break; }
    fclose(f);
    return v;
}

/* Resets the peak RSS (VmHWM) of `pid` to its current RSS; 0 on success. */
static int reset_hwm(long pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/clear_refs", pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

static int parse_list(const char *text, uint64_t *out, int max) {
    int n = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *t = strtok_r(copy, " ,", &save); t && n < max; t = strtok_r(NULL, " ,", &save)) out[n++] = strtoull(t, NULL, 10);
    free(copy);
    return n;
}

static int writer(const char *address, const char *reader_program, const char *reader_app_id, const char *sizes_text,
                  const char *rounds_text) {
    uint64_t sizes[16], rounds[16];
    int nsizes = parse_list(sizes_text, sizes, 16);
    if (parse_list(rounds_text, rounds, 16) != nsizes || nsizes == 0) die("SIZES and ROUNDS must be lists of the same length", NULL);
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] < 16 || sizes[i] % 8 || (sizes[i] > CHUNK && sizes[i] % CHUNK) || rounds[i] < 1) die("bad size or rounds", NULL);
    reader_app = reader_app_id;
    pattern = malloc(CHUNK);
    for (int i = 0; i < CHUNK; i++) pattern[i] = (uint8_t)(i * 2654435761u >> 13);

    DBusConnection *c = connect_bus(address);
    long service = owner_pid(c, SB_NAME);


    /* The reader, with the control socket (3) and the descriptor socket (4). */
    int ctl[2], dat[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, dat))
        die("socketpair", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ctl[1], 3);
    posix_spawn_file_actions_adddup2(&fa, dat[1], 4);
    char *argv[] = {(char *)reader_program, "reader", (char *)address, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, reader_program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot start the reader", strerror(rc));
    close(ctl[1]);
    close(dat[1]);
    int control = ctl[0], data = dat[0];
    char peer[256];
    recv_all(control, peer, sizeof peer);

    long hwm_kib = -1, rss_before_kib = -1;
    int hwm_reset = -1;
    uint64_t stamp = 0;
    printf("{\"pasteboard_type\": \"%s\", \"array_limit_bytes\": %u, \"service_pid_found\": %s, \"sizes\": [", TYPE, MAX_ARRAY,
           service > 0 ? "true" : "false");
    for (int si = 0; si < nsizes; si++) {
        uint64_t size = sizes[si];
        int n = (int)rounds[si];
        int variants[VARIANTS], nv = 0;
        for (int v = 0; v < VARIANTS; v++)
            if (v != DBUS_BYTES || size <= MAX_ARRAY) variants[nv++] = v;
        /* Warm-up: the reader identified by the service, caches and page allocator warm. */
        int warm = n / 10 + 2;
        for (int i = 0; i < warm; i++)
            for (int j = 0; j < nv; j++) hand_off(c, peer, control, data, variants[j], size, ++stamp);
        if (si == nsizes - 1 && service > 0) {
            hwm_reset = reset_hwm(service) == 0;
            rss_before_kib = status_kib(service, "VmRSS");
        }
        Sample *s[VARIANTS];
        for (int j = 0; j < nv; j++) s[j] = calloc(n, sizeof(Sample));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < nv; j++) {
                int k = (i + j) % nv; /* rotate the order every round */
                s[k][i] = hand_off(c, peer, control, data, variants[k], size, ++stamp);
            }
        if (si == nsizes - 1 && service > 0) hwm_kib = status_kib(service, "VmHWM");
        printf("%s{\"bytes\": %llu, \"rounds\": %d", si ? ", " : "", (unsigned long long)size, n);
        double *v = calloc(n, sizeof(double));
        double *pb_total = calloc(n, sizeof(double)), *fd_total = calloc(n, sizeof(double));
        for (int j = 0; j < nv; j++) {
            printf(", \"%s\": {", VARIANT_NAME[variants[j]]);
            const char *phase[] = {"total", "fill", "setitems", "notify", "read", "consume"};
            for (int ph = 0; ph < 6; ph++) {
                if (variants[j] != PASTEBOARD && (ph == 2 || ph == 4)) continue;
                for (int i = 0; i < n; i++) {
                    Sample x = s[j][i];
                    double f[] = {x.total, x.fill, x.setitems, x.notify, x.read, x.consume};
                    v[i] = f[ph];
                    if (ph == 0 && variants[j] == PASTEBOARD) pb_total[i] = x.total;
                    if (ph == 0 && variants[j] == DBUS_FD) fd_total[i] = x.total;
                }
                if (ph == 0) {
                    double p50 = pct(v, n, 50), p90 = pct(v, n, 90); /* sorts v */
                    printf("\"p50_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f, \"phases_p50_us\": {",
                           p50, p90, v[0], v[n - 1]);
                }
                else printf("%s\"%s\": %.1f", ph == 1 ? "" : ", ", phase[ph], pct(v, n, 50));
            }
            printf("}}");
        }
        /* The broker's cost per round: the pasteboard hand-off minus the direct one of the same round. */
        for (int i = 0; i < n; i++) v[i] = pb_total[i] - fd_total[i];
        printf(", \"paired_difference_pasteboard_minus_dbus_fd_p50_us\": %.1f}", pct(v, n, 50));
        free(v); free(pb_total); free(fd_total);
        for (int j = 0; j < nv; j++) free(s[j]);
        fflush(stdout);
    }
    printf("], \"service_rss_before_largest_kib\": %ld, \"service_vmhwm_largest_kib\": %ld, \"service_hwm_reset\": %s}\n",
           rss_before_kib, hwm_kib, hwm_reset == 1 ? "true" : hwm_reset == 0 ? "false" : "null");

    Command quit = {-1, 0, 0, {0}};
    send_all(control, &quit, sizeof quit);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "reader") == 0) return reader(argv[2]);
    if (argc >= 7 && strcmp(argv[1], "writer") == 0) return writer(argv[2], argv[3], argv[4], argv[5], argv[6]);
    fprintf(stderr, "usage: pasteboard-bench writer ADDR READER_PROGRAM READER_APP_ID \"SIZES\" \"ROUNDS\"\n"
                    "       pasteboard-bench reader ADDR   (started by the writer, sockets on fds 3 and 4)\n");
    return 2;
}

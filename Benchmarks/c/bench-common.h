/* What the C programs of make bench share (header-only: each program is one gcc call in
 * Benchmarks/run.sh): one clock, the bus connection and blocking calls, percentiles, the sum every
 * reader computes over the bytes it was handed, the control-socket messages between two processes
 * of a bench (never timed), and the pasteboard calls. Errors end the program with its name. */
#ifndef SCHEMEBRIDGE_BENCH_COMMON_H
#define SCHEMEBRIDGE_BENCH_COMMON_H
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define SB_NAME "io.github.schemebridge.SchemeBridge1"
#define SB_PATH "/io/github/schemebridge/SchemeBridge1"
#define PBS_IFACE "io.github.schemebridge.Pasteboards1"
#define PB_IFACE "io.github.schemebridge.Pasteboard1"

static inline double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline void die(const char *what, const char *detail) {
    fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static inline DBusConnection *connect_bus(const char *address) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(address, &err);
    if (!c || !dbus_bus_register(c, &err)) die("cannot connect", err.message);
    dbus_connection_set_exit_on_disconnect(c, 0);
    return c;
}

/* Sends `m` (taking it) and waits up to 60 s for the reply; an error ends the program. */
static inline DBusMessage *call(DBusConnection *c, DBusMessage *m, const char *what) {
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 60000, &err);
    dbus_message_unref(m);
    if (!r) {
        fprintf(stderr, "%s: %s: %s: %s\n", program_invocation_short_name, what, err.name, err.message);
        exit(1);
    }
    return r;
}

/* The pid of the connection owning `name` (the bus's GetConnectionUnixProcessID). */
static inline long owner_pid(DBusConnection *c, const char *name) {
    DBusMessage *m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                  "GetConnectionUnixProcessID");
    dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    DBusMessage *r = call(c, m, "GetConnectionUnixProcessID");
    dbus_uint32_t pid = 0;
    dbus_message_get_args(r, NULL, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
    dbus_message_unref(r);
    return pid;
}

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile of v (sorts v). */
static inline double pct(double *v, int n, int p) {
    qsort(v, n, sizeof(double), cmp_double);
    int i = n * p / 100;
    return v[i < n ? i : n - 1];
}

/* A 64-bit sum over every 8-byte word of p. */
static inline uint64_t sum64(const uint8_t *p, uint64_t n) {
    const uint64_t *w = (const uint64_t *)p;
    uint64_t a = 0, b = 0, c = 0, d = 0, i = 0, words = n / 8;
    for (; i + 4 <= words; i += 4) { a += w[i]; b += w[i + 1]; c += w[i + 2]; d += w[i + 3]; }
    for (; i < words; i++) a += w[i];
    return a + b + c + d;
}

/* ---- control messages (SOCK_SEQPACKET between the two processes of a bench, never timed) ---- */

static inline void send_all(int fd, const void *p, size_t n) {
    if (send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n) die("control socket send", strerror(errno));
}

static inline void recv_all(int fd, void *p, size_t n) {
    ssize_t r;
    while ((r = recv(fd, p, n, 0)) < 0 && errno == EINTR) {}
    if (r != (ssize_t)n) die("control socket receive", r < 0 ? strerror(errno) : "short message");
}

/* ---- pasteboards ---- */

/* A new pasteboard (unique name, an hour to live); its object path in `path`. */
static inline void create_pasteboard(DBusConnection *c, char *path, size_t size) {
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, PBS_IFACE, "CreatePasteboard");
    const char *empty = "", *key = "expires-in";
    dbus_uint64_t hour = 3600;
    DBusMessageIter it, opts, entry, var;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &empty);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
    dbus_message_iter_open_container(&opts, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "t", &var);
    dbus_message_iter_append_basic(&var, DBUS_TYPE_UINT64, &hour);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(&opts, &entry);
    dbus_message_iter_close_container(&it, &opts);
    DBusMessage *r = call(c, m, "CreatePasteboard");
    const char *p = NULL, *name = NULL;
    if (!dbus_message_get_args(r, NULL, DBUS_TYPE_OBJECT_PATH, &p, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) die("CreatePasteboard", "odd reply");
    snprintf(path, size, "%s", p);
    dbus_message_unref(r);
}

/* Grant([app]) on the pasteboard at `path`. */
static inline void grant(DBusConnection *c, const char *path, const char *app) {
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, path, PB_IFACE, "Grant");
    const char **apps = &app;
    dbus_message_append_args(m, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &apps, 1, DBUS_TYPE_INVALID);
    dbus_message_unref(call(c, m, "Grant"));
}

static inline void delete_pasteboard(DBusConnection *c, const char *path) {
    dbus_message_unref(call(c, dbus_message_new_method_call(SB_NAME, path, PB_IFACE, "Delete"), "Delete"));
}

/* SetItems([{type: h fd}]) on the pasteboard at `path`. */
static inline void set_items(DBusConnection *c, const char *path, const char *type, int fd) {
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, path, PB_IFACE, "SetItems");
    DBusMessageIter it, items, item, entry, var;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "a{sv}", &items);
    dbus_message_iter_open_container(&items, DBUS_TYPE_ARRAY, "{sv}", &item);
    dbus_message_iter_open_container(&item, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &type);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "h", &var);
    dbus_message_iter_append_basic(&var, DBUS_TYPE_UNIX_FD, &fd);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(&item, &entry);
    dbus_message_iter_close_container(&items, &item);
    dbus_message_iter_close_container(&it, &items);
    dbus_message_unref(call(c, m, "SetItems"));
}

#endif

/* make bench: a pick from a running provider (issue 25) and a share to a running target (issue
 * 23), each against the same hand-off done by hand with the version 2 calls, in the same rounds
 * (interleaved, rotating order). Two processes of two apps: the caller (measuring) and the app,
 * a running DBusActivatable app (C, libdbus) that is both the provider and the share target.
 *
 *   pick          PickDocument([image/png], {provider: APP.desktop}) → the service calls the
 *                 app's Activate with a pick token → the app makes a sealed memfd of SIZE bytes
 *                 and answers ProvideDocuments(token, [fd], {names, types}) → the caller gets the
 *                 Response with a read-only descriptor and reads every byte (mmap, sum).
 *   pick_by_hand  the baseline, "a reply round trip plus a pasteboard hand-off": OpenURLWithReply
 *                 (benchprovide://pick?n=…) → the app's Open with a reply token → the app makes
 *                 the same memfd, SetItems on a pasteboard of its own granted to the caller's app
 *                 (created and granted before the round, deleted after it, untimed: as in the
 *                 pasteboard row) and calls Reply(token, 0, {}) → the caller gets the Response,
 *                 calls Read(0, image/png) and reads every byte.
 *   share         the caller makes a sealed memfd of SIZE bytes (a PNG's signature first) and
 *                 calls Share([{type: image/png, data: h}], {target: APP.desktop:share}) → the
 *                 service puts it on a pasteboard granted to the app and calls its
 *                 ActivateAction("share", [], {pasteboard-path, …}) → the app calls Read(0,
 *                 image/png) and reads every byte inside the call → the caller gets the Response.
 *   share_by_hand the baseline, "the same OpenURLWithOptions + pasteboard hand-off done by hand":
 *                 the caller makes the same memfd, SetItems on a pasteboard of its own (created
 *                 before the round, deleted after it, untimed; CreatePasteboard is timed apart as
 *                 `create_us`), then OpenURLWithOptions(benchshare://share?n=…, {pasteboard: path})
 *                 → the service grants the app and calls its Open(uris, {pasteboard-path, …}) → the
 *                 app reads every byte inside the call → OpenURLWithOptions returns.
 * A round ends when the caller has its answer (Response / return) and the reader has read every
 * byte; both clocks are CLOCK_MONOTONIC. The reader checks the size, the sum and the round's stamp.
 *
 *   handoff-bench caller ADDR APP_PROGRAM APP_ID CALLER_APP_ID SIZE ROUNDS
 *       prints one JSON object; APP_PROGRAM is started as `app ADDR APP_ID CALLER_APP_ID` with a
 *       control socket on fd 3 and must own APP_ID (its desktop id less .desktop) on the bus.
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

#define SB_IFACE "io.github.schemebridge.SchemeBridge1"
#define SHARE_IFACE "io.github.schemebridge.Share1"
#define REQUEST_IFACE "io.github.schemebridge.Request1"
#define APP_IFACE "org.freedesktop.Application"
#define TYPE "image/png"

enum { PICK, PICK_BY_HAND, SHARE, SHARE_BY_HAND, VARIANTS };
static const char *VARIANT_NAME[VARIANTS] = {"pick", "pick_by_hand", "share", "share_by_hand"};

/* ---- the data: a PNG signature, the round's stamp, a pattern, the stamp again ---- */

static uint8_t *data;   /* SIZE bytes */
static uint64_t size;

static void make_data(uint64_t n) {
    size = n;
    data = malloc(n);
    for (uint64_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 2654435761u >> 13);
    memcpy(data, "\x89PNG\r\n\x1a\n", 8);
}

/* Stamps the data for a round; returns its sum. */
static uint64_t stamp_data(uint64_t stamp) {
    memcpy(data + 8, &stamp, 8);
    memcpy(data + size - 8, &stamp, 8);
    return sum64(data, size);
}

static int make_memfd(void) {
    int fd = memfd_create("bench-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) die("memfd_create", strerror(errno));
    uint64_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0) { if (errno == EINTR) continue; die("write to memfd", strerror(errno)); }
        done += (uint64_t)n;
    }
    /* As the product's clinux_seal: EBUSY is a page the kernel's memory management still holds. */
    for (int tries = 1; fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0; tries++)
        if (errno != EBUSY || tries == 4) die("seal", strerror(errno));
    return fd;
}

typedef struct {
    double done_us;
    uint64_t size, sum, stamp;
    char error[200];
    char pasteboard[200]; /* share: the share's pasteboard, which the caller owns and deletes after the round */
} Read;

/* Reads every byte of `fd` (fstat, mmap with MAP_POPULATE, a 64-bit sum), then unmaps and
 * closes it. */
static void consume_fd(int fd, Read *r) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 24) { snprintf(r->error, sizeof r->error, "bad descriptor"); close(fd); return; }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) { snprintf(r->error, sizeof r->error, "mmap: %s", strerror(errno)); close(fd); return; }
    r->size = (uint64_t)st.st_size;
    r->sum = sum64(m, r->size);
    memcpy(&r->stamp, (uint8_t *)m + 8, 8);
    r->done_us = now_us();
    munmap(m, (size_t)st.st_size);
    close(fd);
}

/* Read(0, TYPE) on the pasteboard at `path`, then every byte of the descriptor. */
static void read_pasteboard(DBusConnection *c, const char *path, Read *r) {
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, path, PB_IFACE, "Read");
    dbus_uint32_t item = 0;
    const char *type = TYPE;
    dbus_message_append_args(m, DBUS_TYPE_UINT32, &item, DBUS_TYPE_STRING, &type, DBUS_TYPE_INVALID);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(c, m, 60000, &err);
    dbus_message_unref(m);
    int fd = -1;
    if (!reply || !dbus_message_get_args(reply, &err, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID)) {
        snprintf(r->error, sizeof r->error, "Read: %s: %s", err.name ? err.name : "?", err.message ? err.message : "no descriptor");
        dbus_error_free(&err);
        if (reply) dbus_message_unref(reply);
        return;
    }
    dbus_message_unref(reply);
    consume_fd(fd, r);
}

/* ---- a{sv} helpers ---- */

static void dict_string(DBusMessageIter *dict, const char *key, const char *value) {
    DBusMessageIter entry, var;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &var);
    dbus_message_iter_append_basic(&var, DBUS_TYPE_STRING, &value);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(dict, &entry);
}

static void dict_strings(DBusMessageIter *dict, const char *key, const char *value) {
    DBusMessageIter entry, var, arr;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "as", &var);
    dbus_message_iter_open_container(&var, DBUS_TYPE_ARRAY, "s", &arr);
    dbus_message_iter_append_basic(&arr, DBUS_TYPE_STRING, &value);
    dbus_message_iter_close_container(&var, &arr);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(dict, &entry);
}

static void dict_fd(DBusMessageIter *dict, const char *key, int fd) {
    DBusMessageIter entry, var;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "h", &var);
    dbus_message_iter_append_basic(&var, DBUS_TYPE_UNIX_FD, &fd);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(dict, &entry);
}

/* platform_data[key] as a string, or NULL. `it` points at the a{sv}. */
static const char *platform_string(DBusMessageIter *it, const char *want) {
    DBusMessageIter arr, entry, var;
    if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_ARRAY) return NULL;
    for (dbus_message_iter_recurse(it, &arr); dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&arr)) {
        const char *key, *value;
        dbus_message_iter_recurse(&arr, &entry);
        dbus_message_iter_get_basic(&entry, &key);
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &var);
        if (strcmp(key, want) == 0 && dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_STRING) {
            dbus_message_iter_get_basic(&var, &value);
            return value;
        }
    }
    return NULL;
}

/* ---- control messages between the caller and the app (a SOCK_SEQPACKET pair, never timed) ---- */

typedef struct {
    int variant; /* -1: quit */
    uint64_t stamp;
} Command;

typedef struct {
    char path[200]; /* pick_by_hand: the app's pasteboard, granted to the caller's app */
} Ready;

/* ---- the app: provider and share target ---- */

static struct {
    DBusConnection *c;
    const char *caller_app;
    Command cmd;
    char pasteboard[200];
    int handled;
    Read read;
} app;

/* Answers the call `m` with an empty return. */
static void answer(DBusMessage *m) {
    DBusMessage *r = dbus_message_new_method_return(m);
    dbus_connection_send(app.c, r, NULL);
    dbus_connection_flush(app.c);
    dbus_message_unref(r);
}

static void provide(const char *token) {
    int fd = make_memfd();
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "ProvideDocuments");
    DBusMessageIter it, fds, info;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &token);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "h", &fds);
    dbus_message_iter_append_basic(&fds, DBUS_TYPE_UNIX_FD, &fd);
    dbus_message_iter_close_container(&it, &fds);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &info);
    dict_strings(&info, "names", "scan.png");
    dict_strings(&info, "types", TYPE);
    dbus_message_iter_close_container(&it, &info);
    close(fd); /* the message holds a dup */
    dbus_message_unref(call(app.c, m, "ProvideDocuments"));
}

static void reply_by_hand(const char *token) {
    int fd = make_memfd();
    set_items(app.c, app.pasteboard, TYPE, fd);
    close(fd);
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "Reply");
    DBusMessageIter it, dict;
    dbus_uint32_t code = 0;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &token);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &code);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
    dbus_message_iter_close_container(&it, &dict);
    dbus_message_unref(call(app.c, m, "Reply"));
}

static DBusHandlerResult on_app_message(DBusConnection *c, DBusMessage *m, void *unused) {
    (void)c, (void)unused;
    if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    DBusMessageIter it;
    dbus_message_iter_init(m, &it);
    if (dbus_message_is_method_call(m, APP_IFACE, "Activate")) {           /* pick: (a{sv}) */
        const char *token = platform_string(&it, "pick-token");
        char copy[256];
        snprintf(copy, sizeof copy, "%s", token ? token : "");
        answer(m); /* then answer the pick, as an app does once the user chose */
        if (!token) snprintf(app.read.error, sizeof app.read.error, "Activate without a pick-token");
        else provide(copy);
    } else if (dbus_message_is_method_call(m, APP_IFACE, "Open")) {        /* (as, a{sv}) */
        dbus_message_iter_next(&it);
        const char *token = platform_string(&it, "reply-token"), *path = platform_string(&it, "pasteboard-path");
        if (token) {                                                        /* pick by hand */
            char copy[256];
            snprintf(copy, sizeof copy, "%s", token);
            answer(m);
            reply_by_hand(copy);
        } else if (path) {                                                  /* share by hand */
            read_pasteboard(app.c, path, &app.read);
            answer(m);
        } else {
            snprintf(app.read.error, sizeof app.read.error, "Open without a reply-token or a pasteboard-path");
            answer(m);
        }
    } else if (dbus_message_is_method_call(m, APP_IFACE, "ActivateAction")) { /* share: (s, av, a{sv}) */
        dbus_message_iter_next(&it);
        dbus_message_iter_next(&it);
        const char *path = platform_string(&it, "pasteboard-path");
        if (path) {
            read_pasteboard(app.c, path, &app.read);
            snprintf(app.read.pasteboard, sizeof app.read.pasteboard, "%s", path);
        } else snprintf(app.read.error, sizeof app.read.error, "ActivateAction without a pasteboard-path");
        answer(m);
    } else {
        DBusMessage *r = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "not a method of the bench app");
        dbus_connection_send(app.c, r, NULL);
        dbus_message_unref(r);
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    app.handled = 1;
    return DBUS_HANDLER_RESULT_HANDLED;
}

static int run_app(const char *address, const char *name, const char *caller_app) {
    int control = 3;
    app.c = connect_bus(address);
    app.caller_app = caller_app;
    DBusError err;
    dbus_error_init(&err);
    if (dbus_bus_request_name(app.c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        die("cannot own the app's name", err.message ? err.message : name);
    dbus_connection_add_filter(app.c, on_app_message, NULL, NULL);
    char ok = 1;
    send_all(control, &ok, 1);
    for (;;) {
        recv_all(control, &app.cmd, sizeof app.cmd);
        if (app.cmd.variant < 0) break;
        memset(&app.read, 0, sizeof app.read);
        Ready ready;
        memset(&ready, 0, sizeof ready);
        app.pasteboard[0] = 0;
        if (app.cmd.variant == PICK || app.cmd.variant == PICK_BY_HAND) stamp_data(app.cmd.stamp);
        if (app.cmd.variant == PICK_BY_HAND) {
            create_pasteboard(app.c, app.pasteboard, sizeof app.pasteboard);
            grant(app.c, app.pasteboard, caller_app);
            snprintf(ready.path, sizeof ready.path, "%s", app.pasteboard);
        }
        app.handled = 0;
        send_all(control, &ready, sizeof ready);
        while (!app.handled)
            if (!dbus_connection_read_write_dispatch(app.c, -1)) die("app", "disconnected");
        /* The caller says when its side is done (it has read the data), then the pasteboard goes. */
        char done;
        recv_all(control, &done, 1);
        if (app.pasteboard[0]) delete_pasteboard(app.c, app.pasteboard);
        send_all(control, &app.read, sizeof app.read);
    }
    return 0;
}

/* ---- the caller ---- */

static const char *app_id; /* desktop id less .desktop */

/* Waits for the Response of `path`; returns its code, and the first descriptor of its results'
 * `fds` in *fd (or -1). */
static unsigned wait_response(DBusConnection *c, const char *path, int *fd) {
    double t0 = now_us();
    *fd = -1;
    for (;;) {
        DBusMessage *m = dbus_connection_pop_message(c);
        if (!m) {
            if (now_us() - t0 > 60e6) die("no Response in 60 s", path);
            if (!dbus_connection_read_write(c, 1000)) die("caller", "disconnected");
            continue;
        }
        if (!(dbus_message_is_signal(m, REQUEST_IFACE, "Response") && dbus_message_get_path(m) && strcmp(dbus_message_get_path(m), path) == 0)) {
            dbus_message_unref(m);
            continue;
        }
        DBusMessageIter it, arr, entry, var, fds;
        dbus_uint32_t code = 99;
        dbus_message_iter_init(m, &it);
        dbus_message_iter_get_basic(&it, &code);
        dbus_message_iter_next(&it);
        for (dbus_message_iter_recurse(&it, &arr); dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&arr)) {
            const char *key;
            dbus_message_iter_recurse(&arr, &entry);
            dbus_message_iter_get_basic(&entry, &key);
            dbus_message_iter_next(&entry);
            dbus_message_iter_recurse(&entry, &var);
            if (strcmp(key, "fds") == 0 && dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_ARRAY) {
                dbus_message_iter_recurse(&var, &fds);
                if (dbus_message_iter_get_arg_type(&fds) == DBUS_TYPE_UNIX_FD) dbus_message_iter_get_basic(&fds, fd);
            } else if (strcmp(key, "error-message") == 0 && dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_STRING) {
                const char *msg;
                dbus_message_iter_get_basic(&var, &msg);
                fprintf(stderr, "handoff-bench: Response %u: %s\n", code, msg);
            }
        }
        dbus_message_unref(m);
        return code;
    }
}

static const char *request_path(DBusMessage *r, const char *what) {
    const char *path = NULL;
    if (!dbus_message_get_args(r, NULL, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID)) die(what, "no request path");
    return path;
}

typedef struct {
    double total, answer, create; /* answer: the caller had its Response / return; create: CreatePasteboard (share_by_hand) */
} Sample;

static void check(const char *what, const Read *r, uint64_t expected, uint64_t stamp) {
    if (r->error[0]) die(what, r->error);
    if (r->size != size || r->sum != expected || r->stamp != stamp) {
        fprintf(stderr, "handoff-bench: %s: other bytes were read (size %llu of %llu, stamp %llu of %llu)\n", what,
                (unsigned long long)r->size, (unsigned long long)size, (unsigned long long)r->stamp, (unsigned long long)stamp);
        exit(1);
    }
}

static Sample round_of(DBusConnection *c, int control, int variant, uint64_t stamp) {
    static long serial;
    uint64_t expected = stamp_data(stamp);
    Command cmd = {variant, stamp};
    send_all(control, &cmd, sizeof cmd);
    Ready ready;
    recv_all(control, &ready, sizeof ready);
    char own[200] = {0}, url[256], target[256];
    Sample s = {0};
    Read mine;
    memset(&mine, 0, sizeof mine);
    if (variant == SHARE_BY_HAND) { /* timed apart: the pasteboard the share makes for itself */
        double c0 = now_us();
        create_pasteboard(c, own, sizeof own);
        s.create = now_us() - c0;
    }
    double t0 = now_us();
    switch (variant) {
    case PICK: {
        DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "PickDocument");
        DBusMessageIter it, types, opts;
        const char *type = TYPE;
        snprintf(target, sizeof target, "%s.desktop", app_id);
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &types);
        dbus_message_iter_append_basic(&types, DBUS_TYPE_STRING, &type);
        dbus_message_iter_close_container(&it, &types);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
        dict_string(&opts, "provider", target);
        dbus_message_iter_close_container(&it, &opts);
        DBusMessage *r = call(c, m, "PickDocument");
        int fd;
        unsigned code = wait_response(c, request_path(r, "PickDocument"), &fd);
        dbus_message_unref(r);
        s.answer = now_us() - t0;
        if (code != 0 || fd < 0) die("pick", "no document in the Response");
        consume_fd(fd, &mine);
        check("pick", &mine, expected, stamp);
        break;
    }
    case PICK_BY_HAND: {
        snprintf(url, sizeof url, "benchprovide://pick?n=%ld", ++serial);
        const char *u = url;
        DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "OpenURLWithReply");
        DBusMessageIter it, opts;
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &u);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
        dbus_message_iter_close_container(&it, &opts);
        DBusMessage *r = call(c, m, "OpenURLWithReply");
        int fd;
        unsigned code = wait_response(c, request_path(r, "OpenURLWithReply"), &fd);
        dbus_message_unref(r);
        s.answer = now_us() - t0;
        if (code != 0) die("pick_by_hand", "Response not 0");
        read_pasteboard(c, ready.path, &mine);
        check("pick_by_hand", &mine, expected, stamp);
        break;
    }
    case SHARE: {
        int fd = make_memfd();
        snprintf(target, sizeof target, "%s.desktop:share", app_id);
        DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SHARE_IFACE, "Share");
        DBusMessageIter it, items, item, opts;
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "a{sv}", &items);
        dbus_message_iter_open_container(&items, DBUS_TYPE_ARRAY, "{sv}", &item);
        dict_string(&item, "type", TYPE);
        dict_fd(&item, "data", fd);
        dbus_message_iter_close_container(&items, &item);
        dbus_message_iter_close_container(&it, &items);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
        dict_string(&opts, "target", target);
        dbus_message_iter_close_container(&it, &opts);
        close(fd);
        DBusMessage *r = call(c, m, "Share");
        int none;
        unsigned code = wait_response(c, request_path(r, "Share"), &none);
        dbus_message_unref(r);
        s.answer = now_us() - t0;
        if (code != 0) die("share", "Response not 0");
        break;
    }
    case SHARE_BY_HAND: {
        int fd = make_memfd();
        set_items(c, own, TYPE, fd);
        close(fd);
        snprintf(url, sizeof url, "benchshare://share?n=%ld", ++serial);
        const char *u = url;
        DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "OpenURLWithOptions");
        DBusMessageIter it, opts, entry, var;
        const char *key = "pasteboard", *p = own;
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &u);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
        dbus_message_iter_open_container(&opts, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
        dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "o", &var);
        dbus_message_iter_append_basic(&var, DBUS_TYPE_OBJECT_PATH, &p);
        dbus_message_iter_close_container(&entry, &var);
        dbus_message_iter_close_container(&opts, &entry);
        dbus_message_iter_close_container(&it, &opts);
        dbus_message_unref(call(c, m, "OpenURLWithOptions"));
        s.answer = now_us() - t0;
        break;
    }
    }
    double caller_done = now_us();
    char done = 1;
    send_all(control, &done, 1);
    Read theirs;
    recv_all(control, &theirs, sizeof theirs);
    if (variant == SHARE || variant == SHARE_BY_HAND) {
        check(VARIANT_NAME[variant], &theirs, expected, stamp);
        s.total = (theirs.done_us > caller_done ? theirs.done_us : caller_done) - t0;
    } else {
        if (theirs.error[0]) die(VARIANT_NAME[variant], theirs.error);
        s.total = mine.done_us - t0;
    }
    /* Untimed, as in the pasteboard rows: the caller deletes its pasteboard, or the one the
     * share made for it (it lives on after the share, counted in the caller's MaxPasteboardsPerApp). */
    if (own[0]) delete_pasteboard(c, own);
    if (variant == SHARE && theirs.pasteboard[0]) delete_pasteboard(c, theirs.pasteboard);
    /* Drop what arrived meanwhile (the pasteboards' Changed signals). */
    dbus_connection_read_write(c, 0);
    DBusMessage *m;
    while ((m = dbus_connection_pop_message(c))) dbus_message_unref(m);
    return s;
}

static int run_caller(const char *address, const char *app_program, const char *app, const char *caller_app, uint64_t n, int rounds) {
    app_id = app;
    make_data(n);
    DBusConnection *c = connect_bus(address);
    int ctl[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl)) die("socketpair", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ctl[1], 3);
    char *argv[] = {(char *)app_program, "app", (char *)address, (char *)app, (char *)caller_app, NULL};
    pid_t pid;
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%llu", (unsigned long long)n);
    setenv("HANDOFF_SIZE", size_text, 1);
    int rc = posix_spawn(&pid, app_program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot start the app", strerror(rc));
    close(ctl[1]);
    int control = ctl[0];
    char ok;
    recv_all(control, &ok, 1);

    uint64_t stamp = 0;
    for (int i = 0; i < rounds / 10 + 2; i++) /* warm-up: both apps identified, caches warm */
        for (int v = 0; v < VARIANTS; v++) round_of(c, control, v, ++stamp);
    Sample *s[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) s[v] = calloc(rounds, sizeof(Sample));
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < VARIANTS; j++) {
            int v = (i + j) % VARIANTS;
            s[v][i] = round_of(c, control, v, ++stamp);
        }
    double *x = calloc(rounds, sizeof(double));
    printf("{\"bytes\": %llu, \"rounds\": %d, \"type\": \"%s\"", (unsigned long long)n, rounds, TYPE);
    for (int v = 0; v < VARIANTS; v++) {
        for (int i = 0; i < rounds; i++) x[i] = s[v][i].total;
        double p50 = pct(x, rounds, 50), p90 = pct(x, rounds, 90), lo = x[0], hi = x[rounds - 1];
        for (int i = 0; i < rounds; i++) x[i] = s[v][i].answer;
        printf(", \"%s\": {\"p50_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f, \"answer_p50_us\": %.1f", VARIANT_NAME[v], p50, p90,
               lo, hi, pct(x, rounds, 50));
        if (v == SHARE_BY_HAND) {
            for (int i = 0; i < rounds; i++) x[i] = s[v][i].create;
            printf(", \"create_pasteboard_p50_us\": %.1f", pct(x, rounds, 50));
        }
        printf("}");
    }
    /* Per-round ratios (each round's own pair), their median. */
    for (int i = 0; i < rounds; i++) x[i] = s[PICK][i].total / s[PICK_BY_HAND][i].total;
    printf(", \"pick_over_by_hand_paired_p50\": %.3f", pct(x, rounds, 50));
    for (int i = 0; i < rounds; i++) x[i] = s[SHARE][i].total / s[SHARE_BY_HAND][i].total;
    printf(", \"share_over_by_hand_paired_p50\": %.3f}\n", pct(x, rounds, 50));
    Command quit = {-1, 0};
    send_all(control, &quit, sizeof quit);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "app") == 0) {
        const char *n = getenv("HANDOFF_SIZE");
        make_data(n ? strtoull(n, NULL, 10) : 0);
        if (size < 24 || size % 8) die("HANDOFF_SIZE", "at least 24 and a multiple of 8");
        return run_app(argv[2], argv[3], argv[4]);
    }
    if (argc >= 8 && strcmp(argv[1], "caller") == 0) {
        uint64_t n = strtoull(argv[6], NULL, 10);
        int rounds = atoi(argv[7]);
        if (n < 24 || n % 8 || rounds < 1) die("SIZE must be at least 24 and a multiple of 8, ROUNDS at least 1", NULL);
        return run_caller(argv[2], argv[3], argv[4], argv[5], n, rounds);
    }
    fprintf(stderr, "usage: handoff-bench caller ADDR APP_PROGRAM APP_ID CALLER_APP_ID SIZE ROUNDS\n"
                    "       handoff-bench app ADDR APP_ID CALLER_APP_ID   (started by the caller, control socket on fd 3)\n");
    return 2;
}

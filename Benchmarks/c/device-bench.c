/* make bench: sending to a nearby device through SchemeBridge (issue 24), against calling the
 * engine (a real kdeconnectd, paired with another one: Benchmarks/devices.sh) directly, in the
 * same rounds (interleaved, rotating order).
 *
 *   device-bench send ADDR_A ADDR_B DEVICE_ID FILE SCRATCH ROUNDS
 *       one JSON object. Each round sends FILE to DEVICE_ID (the other engine, as side A's engine
 *       sees it) five ways, each timed until the engine accepted it — its `shareUrl` call
 *       returned (it has queued the transfer; no engine confirms delivery). Each round runs
 *       `share` and `relay` back to back, taking turns at going first (ABAB: the pair meets the
 *       same load), then the other three in rotating order; besides each way's p50, the median
 *       of the rounds' `share`/`relay` ratios is reported (`share_over_relay_paired_p50`):
 *         share        Share([{file: h}], {target: DEVICE_ID}) on side A's schemebridged, until
 *                      the request's Response (code 0: the service copied the file into its
 *                      outbox and the engine's shareUrl of the copy returned; when Share
 *                      itself returned the request is noted too);
 *         engine       the baseline: shareUrl("file://FILE") on the engine's share plugin;
 *         copy_engine  a copy of FILE into SCRATCH made the way the outbox makes it (read and
 *                      write, 64 KiB at a time), then shareUrl of the copy: what the copy costs;
 *         sendfile_engine  the same with the copy made by sendfile (in the kernel, as the Inbox
 *                      and the pasteboards copy): what a kernel copy in the outbox would cost.
 *       After each send, outside its time: wait for side B's engine to report the file (its
 *       `shareReceived` signal on ADDR_B: the transfer over the veth pair is over, so the next
 *       send does not overlap it; when that was is reported too, `received_by_b`), compare its
 *       size, and remove it (and the copy). Besides the times: the CPU each of the two services
 *       spent within each of its calls (`cpu_us`: the service's threads for `share`, the relay's
 *       for `relay`, from the call to the Response, as /proc/PID/task/TID/schedstat counts it),
 *       which load moves far less than the times.
 *   device-bench sheet ADDR_A FILE RECORD ROUNDS
 *       Share([{file: h}], {ask: true}) with `[Chooser] Command=device-bench probe RECORD
 *       DEVICE_ID` configured: the sheet is that probe, which notes when it started and when it
 *       had read its request (the device among the candidates), then answers `cancelled`. One JSON object:
 *       Share call → sheet started, and sheet started → device list read.
 *   device-bench probe RECORD DEVICE_ID
 *       the probe (the service runs it as its chooser).
 */
#include "bench-common.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHARE_IFACE "io.github.schemebridge.Share1"
#define REQUEST_IFACE "io.github.schemebridge.Request1"
#define KC_NAME "org.kde.kdeconnect"
#define KC_SHARE_IFACE "org.kde.kdeconnect.device.share"

enum { SHARE, ENGINE, COPY_ENGINE, SENDFILE_ENGINE, RELAY, RELAY_CONTRACT, VARIANTS };
static const char *VARIANT_NAME[VARIANTS] = {"share", "engine", "copy_engine", "sendfile_engine", "relay", "relay_contract"};
#define RELAY_NAME "io.github.schemebridge.BenchRelay"
#define RELAY_PATH "/io/github/schemebridge/BenchRelay"

static void dict_string(DBusMessageIter *dict, const char *key, int type, const void *value) {
    DBusMessageIter entry, var;
    char sig[2] = {(char)type, 0};
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, sig, &var);
    dbus_message_iter_append_basic(&var, type, value);
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(dict, &entry);
}

static double share_returned_us; /* when the last Share call returned its request */
static unsigned response(DBusConnection *c, DBusMessage *r);

/* Share([{file: h}], options) where options holds `target` (a device id) or `ask` true;
 * returns the Response's code. */
static unsigned share_at(DBusConnection *c, const char *name, const char *path, const char *file, const char *target) {
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die(file, strerror(errno));
    DBusMessage *m = dbus_message_new_method_call(name, path, SHARE_IFACE, "Share");
    DBusMessageIter it, items, item, opts;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "a{sv}", &items);
    dbus_message_iter_open_container(&items, DBUS_TYPE_ARRAY, "{sv}", &item);
    dict_string(&item, "file", DBUS_TYPE_UNIX_FD, &fd);
    dbus_message_iter_close_container(&items, &item);
    dbus_message_iter_close_container(&it, &items);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &opts);
    dbus_bool_t yes = 1;
    if (target) dict_string(&opts, "target", DBUS_TYPE_STRING, &target);
    else dict_string(&opts, "ask", DBUS_TYPE_BOOLEAN, &yes);
    dbus_message_iter_close_container(&it, &opts);
    close(fd);
    DBusMessage *r = call(c, m, "Share");
    share_returned_us = now_us();
    unsigned code = response(c, r);
    dbus_message_unref(r);
    return code;
}

static unsigned share(DBusConnection *c, const char *file, const char *target) { return share_at(c, SB_NAME, SB_PATH, file, target); }

/* Waits for the Response of the request named in reply `r`; returns its code. */
static unsigned response(DBusConnection *c, DBusMessage *r) {
    const char *path = NULL;
    if (!dbus_message_get_args(r, NULL, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID)) die("Share", "no request path");
    double t0 = now_us();
    for (;;) {
        DBusMessage *s = dbus_connection_pop_message(c);
        if (!s) {
            if (now_us() - t0 > 120e6) die("no Response in 120 s", path);
            if (!dbus_connection_read_write(c, 1000)) die("Share", "disconnected");
            continue;
        }
        if (dbus_message_is_signal(s, REQUEST_IFACE, "Response") && strcmp(dbus_message_get_path(s), path) == 0) {
            dbus_uint32_t code = 99;
            DBusMessageIter a, arr, entry, var;
            dbus_message_iter_init(s, &a);
            dbus_message_iter_get_basic(&a, &code);
            dbus_message_iter_next(&a);
            for (dbus_message_iter_recurse(&a, &arr); code == 2 && dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY;
                 dbus_message_iter_next(&arr)) {
                const char *key, *msg;
                dbus_message_iter_recurse(&arr, &entry);
                dbus_message_iter_get_basic(&entry, &key);
                dbus_message_iter_next(&entry);
                dbus_message_iter_recurse(&entry, &var);
                if (strcmp(key, "error-message") == 0 && dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_STRING) {
                    dbus_message_iter_get_basic(&var, &msg);
                    fprintf(stderr, "device-bench: Share failed: %s\n", msg);
                }
            }
            dbus_message_unref(s);
            return code;
        }
        dbus_message_unref(s);
    }
}

/* shareUrl("file://PATH") on the engine's share plugin of `device`. */
static void share_url(DBusConnection *c, const char *device, const char *path) {
    char object[512], url[4200];
    snprintf(object, sizeof object, "/modules/kdeconnect/devices/%s/share", device);
    snprintf(url, sizeof url, "file://%s", path);
    const char *u = url;
    DBusMessage *m = dbus_message_new_method_call(KC_NAME, object, KC_SHARE_IFACE, "shareUrl");
    dbus_message_append_args(m, DBUS_TYPE_STRING, &u, DBUS_TYPE_INVALID);
    dbus_message_unref(call(c, m, "shareUrl"));
}

/* A copy of `file` at `to`, read and written 64 KiB at a time (as the outbox copies), or with
 * sendfile (in the kernel, as the Inbox and the pasteboards copy). */
static void copy_file(const char *file, const char *to, int kernel) {
    static char buffer[1 << 16];
    int in = open(file, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (in < 0 || out < 0) die("copy", strerror(errno));
    for (off_t offset = 0; kernel;) {
        ssize_t n = sendfile(out, in, &offset, 1 << 30);
        if (n < 0) { if (errno == EINTR) continue; die("copy: sendfile", strerror(errno)); }
        if (n == 0) break;
    }
    while (!kernel) {
        ssize_t n = read(in, buffer, sizeof buffer);
        if (n < 0) { if (errno == EINTR) continue; die("copy: read", strerror(errno)); }
        if (n == 0) break;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buffer + done, (size_t)(n - done));
            if (w < 0) { if (errno == EINTR) continue; die("copy: write", strerror(errno)); }
            done += w;
        }
    }
    close(in);
    close(out);
}

/* Waits for side B's engine to report a received file (shareReceived("file://…")); removes the
 * file and returns its size. */
static long long received(DBusConnection *b) {
    double t0 = now_us();
    for (;;) {
        DBusMessage *m = dbus_connection_pop_message(b);
        if (!m) {
            if (now_us() - t0 > 120e6) die("side B", "no shareReceived in 120 s");
            if (!dbus_connection_read_write(b, 1000)) die("side B", "disconnected");
            continue;
        }
        const char *url = NULL;
        if (dbus_message_is_signal(m, KC_SHARE_IFACE, "shareReceived") &&
            dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID) && strncmp(url, "file://", 7) == 0) {
            struct stat st;
            long long size = stat(url + 7, &st) == 0 ? (long long)st.st_size : -1;
            unlink(url + 7);
            dbus_message_unref(m);
            return size;
        }
        dbus_message_unref(m);
    }
}

/* ---- the floor: a bare relay between the caller and the engine ----
 * What any service standing where SchemeBridge stands costs at the least: a single-threaded C
 * process on side A's bus that takes a share, replies with a request path, calls the engine's
 * shareUrl with the descriptor's path (/proc/self/fd) and, when the engine returned, sends
 * Request1.Response to the caller — no identification, no type, no checks. Two forms, each
 * timed like `share` (from the call to the Response):
 *   relay           Share(h file, s device) on the relay's own interface, Response(0, {}): the
 *                   least any caller and any service could exchange (sessions 8-19's floor);
 *   relay_contract  the contract's Share(aa{sv} items, a{sv} options) — the same message the
 *                   caller sends SchemeBridge, its first item's `file` and the `target` option
 *                   read — and the contract's Response(0, {target, device, engine, delivery}) as
 *                   SchemeBridge answers it: the floor of a service that speaks the contract
 *                   (what the caller builds, the bus routes and checks, and the caller reads,
 *                   the same as for `share`). */

/* In the a{sv} at `array` (an iterator on the array): the value of `key` when it is of `type`
 * (into `out`, as dbus_message_iter_get_basic gives it); 0 when found. */
static int vardict_find(DBusMessageIter *array, const char *key, int type, void *out) {
    DBusMessageIter entry, var, dict;
    for (dbus_message_iter_recurse(array, &dict); dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&dict)) {
        const char *k;
        dbus_message_iter_recurse(&dict, &entry);
        dbus_message_iter_get_basic(&entry, &k);
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &var);
        if (strcmp(k, key) == 0 && dbus_message_iter_get_arg_type(&var) == type) {
            dbus_message_iter_get_basic(&var, out);
            return 0;
        }
    }
    return -1;
}

/* Reads Share(aa{sv}, a{sv})'s first item's `file` and the `target` option; 0 when found. */
static int contract_share_args(DBusMessage *m, int *fd, const char **target) {
    DBusMessageIter a, items;
    *fd = -1, *target = NULL;
    if (!dbus_message_iter_init(m, &a) || dbus_message_iter_get_arg_type(&a) != DBUS_TYPE_ARRAY) return -1;
    dbus_message_iter_recurse(&a, &items);
    if (dbus_message_iter_get_arg_type(&items) != DBUS_TYPE_ARRAY || vardict_find(&items, "file", DBUS_TYPE_UNIX_FD, fd) != 0) return -1;
    if (!dbus_message_iter_next(&a) || dbus_message_iter_get_arg_type(&a) != DBUS_TYPE_ARRAY) return -1;
    return vardict_find(&a, "target", DBUS_TYPE_STRING, target);
}

static void relay_serve(const char *addr, int ready) {
    DBusConnection *c = connect_bus(addr);
    DBusError err;
    dbus_error_init(&err);
    if (dbus_bus_request_name(c, RELAY_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) die("relay", "cannot own its name");
    if (write(ready, "1", 1) != 1) die("relay", "cannot say it is ready");
    close(ready);
    for (unsigned n = 0;; ) {
        DBusMessage *m = dbus_connection_pop_message(c);
        if (!m) {
            if (!dbus_connection_read_write(c, -1)) exit(0);
            continue;
        }
        int fd = -1;
        const char *device = NULL;
        int contract = dbus_message_is_method_call(m, SHARE_IFACE, "Share");
        if (contract ? contract_share_args(m, &fd, &device) != 0
                     : (!dbus_message_is_method_call(m, RELAY_NAME, "Share") ||
                        !dbus_message_get_args(m, NULL, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_STRING, &device, DBUS_TYPE_INVALID))) {
            if (fd >= 0) close(fd);
            dbus_message_unref(m);
            continue;
        }
        char link[64], path[4096] = {0}, object[128];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        if (readlink(link, path, sizeof path - 1) <= 0) die("relay", "readlink");
        close(fd);
        snprintf(object, sizeof object, "/relay/%u", ++n);
        const char *o = object;
        DBusMessage *reply = dbus_message_new_method_return(m);
        dbus_message_append_args(reply, DBUS_TYPE_OBJECT_PATH, &o, DBUS_TYPE_INVALID);
        dbus_connection_send(c, reply, NULL);
        dbus_message_unref(reply);
        share_url(c, device, path);
        DBusMessage *sig = dbus_message_new_signal(object, REQUEST_IFACE, "Response");
        dbus_message_set_destination(sig, dbus_message_get_sender(m));
        dbus_uint32_t code = 0;
        DBusMessageIter it, dict;
        dbus_message_iter_init_append(sig, &it);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &code);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
        if (contract) {
            const char *engine = "kdeconnect", *delivery = "handed-to-engine";
            dict_string(&dict, "device", DBUS_TYPE_STRING, &device);
            dict_string(&dict, "engine", DBUS_TYPE_STRING, &engine);
            dict_string(&dict, "delivery", DBUS_TYPE_STRING, &delivery);
            dict_string(&dict, "target", DBUS_TYPE_STRING, &device);
        }
        dbus_message_iter_close_container(&it, &dict);
        dbus_connection_send(c, sig, NULL);
        dbus_connection_flush(c);
        dbus_message_unref(sig);
        dbus_message_unref(m);
    }
}

/* Starts the relay in a child process; returns its pid once it owns its name. */
static pid_t relay_start(const char *addr) {
    int p[2];
    if (pipe(p) != 0) die("relay", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) die("relay", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        relay_serve(addr, p[1]);
        _exit(0);
    }
    close(p[1]);
    char b;
    if (read(p[0], &b, 1) != 1) die("relay", "did not start");
    close(p[0]);
    return pid;
}

/* Share(file, device) on the relay, until its Response. */
static unsigned relay_share(DBusConnection *c, const char *file, const char *device) {
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die(file, strerror(errno));
    DBusMessage *m = dbus_message_new_method_call(RELAY_NAME, RELAY_PATH, RELAY_NAME, "Share");
    dbus_message_append_args(m, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_STRING, &device, DBUS_TYPE_INVALID);
    close(fd);
    DBusMessage *r = call(c, m, "relay Share");
    unsigned code = response(c, r);
    dbus_message_unref(r);
    return code;
}

/* The CPU time process `pid`'s threads have run so far, in µs (their schedstat); -1 if it is gone. */
static double cpu_us(long pid) {
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    double ns = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/%ld/task/%.20s/schedstat", pid, e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(line, sizeof line, f)) ns += strtod(line, NULL);
        if (f) fclose(f);
    }
    closedir(d);
    return ns / 1e3;
}

static int send_rounds(const char *addr_a, const char *addr_b, const char *device, const char *file, const char *scratch, int rounds) {
    struct stat st;
    if (stat(file, &st) != 0) die(file, strerror(errno));
    pid_t relay = relay_start(addr_a);
    DBusConnection *a = connect_bus(addr_a), *b = connect_bus(addr_b);
    DBusError err;
    dbus_error_init(&err);
    dbus_bus_add_match(b, "type='signal',sender='" KC_NAME "',interface='" KC_SHARE_IFACE "',member='shareReceived'", &err);
    if (dbus_error_is_set(&err)) die("side B: AddMatch", err.message);
    int warm = rounds / 10 + 1, total = warm + rounds;
    double *v[VARIANTS], *delivered[VARIANTS], *returned = calloc(rounds, sizeof(double));
    for (int k = 0; k < VARIANTS; k++) v[k] = calloc(rounds, sizeof(double)), delivered[k] = calloc(rounds, sizeof(double));
    /* Each round: `share`, `relay` and `relay_contract` back to back, in rotating order (so the
     * three meet the same load and none always goes first), then the other three in rotating order. */
    double *pair = calloc(rounds, sizeof(double)), *pair_contract = calloc(rounds, sizeof(double));
    double *cpu[3] = {calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double))};
    long service = owner_pid(a, SB_NAME);
    /* SB_ROUND_LOG=FILE: each round's Share and relay times (µs) and CPU, appended (the two populations). */
    FILE *round_log = getenv("SB_ROUND_LOG") ? fopen(getenv("SB_ROUND_LOG"), "a") : NULL;
    for (int i = 0; i < total; i++)
        for (int j = 0; j < VARIANTS; j++) {
            static const int servers[3] = {SHARE, RELAY, RELAY_CONTRACT}, others[3] = {ENGINE, COPY_ENGINE, SENDFILE_ENGINE};
            int k = j < 3 ? servers[(i + j) % 3] : others[(i + j - 3) % 3];
            char copy[4096] = {0};
            long pid = k == SHARE ? service : (k == RELAY || k == RELAY_CONTRACT) ? (long)relay : 0;
            double c0 = pid ? cpu_us(pid) : 0, t0 = now_us();
            switch (k) {
            case SHARE:
                if (share(a, file, device) != 0) die("share", "the Response was not 0");
                break;
            case ENGINE:
                share_url(a, device, file);
                break;
            case RELAY:
                if (relay_share(a, file, device) != 0) die("relay", "the Response was not 0");
                break;
            case RELAY_CONTRACT:
                if (share_at(a, RELAY_NAME, RELAY_PATH, file, device) != 0) die("relay_contract", "the Response was not 0");
                break;
            case COPY_ENGINE:
            case SENDFILE_ENGINE:
                snprintf(copy, sizeof copy, "%s/copy-%d-%d", scratch, i, k);
                copy_file(file, copy, k == SENDFILE_ENGINE);
                share_url(a, device, copy);
                break;
            }
            double t = now_us() - t0;
            if (pid && i >= warm) cpu[k == SHARE ? 0 : k == RELAY ? 1 : 2][i - warm] = cpu_us(pid) - c0;
            if (i >= warm) v[k][i - warm] = t;
            if (i >= warm && j == 2) pair[i - warm] = v[SHARE][i - warm] / v[RELAY][i - warm];
            if (i >= warm && j == 2) pair_contract[i - warm] = v[SHARE][i - warm] / v[RELAY_CONTRACT][i - warm];
            if (i >= warm && j == 2 && round_log) {
                fprintf(round_log, "ROUND %d first=%s share %.0f relay %.0f relay_contract %.0f cpu %.0f %.0f %.0f\n", i, VARIANT_NAME[servers[i % 3]],
                        v[SHARE][i - warm], v[RELAY][i - warm], v[RELAY_CONTRACT][i - warm], cpu[0][i - warm], cpu[1][i - warm], cpu[2][i - warm]);
                fflush(round_log);
            }
            if (i >= warm && k == SHARE) returned[i - warm] = share_returned_us - t0;
            long long got = received(b);
            if (i >= warm) delivered[k][i - warm] = now_us() - t0;
            if (copy[0]) unlink(copy);
            if (got != (long long)st.st_size) {
                fprintf(stderr, "device-bench: %s: side B received %lld bytes of %lld\n", VARIANT_NAME[k], got, (long long)st.st_size);
                exit(1);
            }
        }
    printf("{\"bytes\": %lld, \"rounds\": %d", (long long)st.st_size, rounds);
    for (int k = 0; k < VARIANTS; k++) {
        double p50 = pct(v[k], rounds, 50), p90 = pct(v[k], rounds, 90);
        printf(", \"%s\": {\"p50_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f, \"received_by_b_p50_us\": %.1f}", VARIANT_NAME[k], p50,
               p90, v[k][0], v[k][rounds - 1], pct(delivered[k], rounds, 50));
    }
    printf(", \"share_returned_p50_us\": %.1f, \"share_over_relay_paired_p50\": %.3f, \"share_over_relay_contract_paired_p50\": %.3f",
           pct(returned, rounds, 50), pct(pair, rounds, 50), pct(pair_contract, rounds, 50));
    printf(", \"cpu_us\": {\"share_p50\": %.1f, \"relay_p50\": %.1f, \"relay_contract_p50\": %.1f}}\n", pct(cpu[0], rounds, 50), pct(cpu[1], rounds, 50),
           pct(cpu[2], rounds, 50));
    if (round_log) fclose(round_log);
    kill(relay, SIGTERM);
    return 0;
}

/* ---- the sheet ---- */

static int probe(const char *record, const char *device) {
    double start = now_us();
    char buf[1 << 16];
    size_t n = 0;
    ssize_t r;
    /* The dialogs' message (docs/CONTRACT.md "The dialogs"): one JSON object on one line. */
    while (n < sizeof buf - 1 && (n == 0 || buf[n - 1] != '\n') &&
           ((r = read(0, buf + n, sizeof buf - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0) n += (size_t)r;
    buf[n] = 0;
    double read_done = now_us();
    /* The device among the candidates (each has an "icon"; nothing else in the message does). */
    char quoted[512];
    snprintf(quoted, sizeof quoted, "\"%s\"", device);
    int has = strstr(buf, quoted) != NULL && strstr(buf, "\"device\"") != NULL, lines = 0;
    for (const char *p = buf; (p = strstr(p, "\"icon\"")); p++) lines++;
    FILE *f = fopen(record, "w");
    if (!f) return 2;
    fprintf(f, "%.1f %.1f %d %d\n", start, read_done, has, lines);
    fclose(f);
    fputs("{\"version\":1,\"answer\":\"cancelled\"}\n", stdout);
    return 0;
}

static int sheet_rounds(const char *addr_a, const char *file, const char *record, int rounds) {
    DBusConnection *a = connect_bus(addr_a);
    int warm = rounds / 10 + 1;
    double *opened = calloc(rounds, sizeof(double)), *listed = calloc(rounds, sizeof(double)), *answered = calloc(rounds, sizeof(double));
    int lines = 0;
    for (int i = 0; i < warm + rounds; i++) {
        unlink(record);
        double t0 = now_us();
        unsigned code = share(a, file, NULL);
        double t1 = now_us();
        if (code != 1) die("sheet", "the Response was not 1 (cancelled)");
        double start, read_done;
        int has = 0;
        FILE *f = fopen(record, "r");
        if (!f || fscanf(f, "%lf %lf %d %d", &start, &read_done, &has, &lines) != 4) die("sheet", "the probe left no record");
        fclose(f);
        if (!has) die("sheet", "the device was not among the sheet's candidates");
        if (i < warm) continue;
        opened[i - warm] = start - t0;
        listed[i - warm] = read_done - start;
        answered[i - warm] = t1 - t0;
    }
    double o50 = pct(opened, rounds, 50), o90 = pct(opened, rounds, 90), l50 = pct(listed, rounds, 50), l90 = pct(listed, rounds, 90);
    printf("{\"rounds\": %d, \"candidates\": %d", rounds, lines);
    printf(", \"share_to_sheet_started\": {\"p50_us\": %.1f, \"p90_us\": %.1f}", o50, o90);
    printf(", \"sheet_started_to_device_list\": {\"p50_us\": %.1f, \"p90_us\": %.1f, \"max_us\": %.1f}", l50, l90, listed[rounds - 1]);
    printf(", \"share_to_cancelled_response\": {\"p50_us\": %.1f}}\n", pct(answered, rounds, 50));
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 8 && strcmp(argv[1], "send") == 0) return send_rounds(argv[2], argv[3], argv[4], argv[5], argv[6], atoi(argv[7]));
    if (argc == 6 && strcmp(argv[1], "sheet") == 0) return sheet_rounds(argv[2], argv[3], argv[4], atoi(argv[5]));
    if (argc == 4 && strcmp(argv[1], "probe") == 0) return probe(argv[2], argv[3]);
    fprintf(stderr, "usage: device-bench send ADDR_A ADDR_B DEVICE_ID FILE SCRATCH ROUNDS\n"
                    "       device-bench sheet ADDR_A FILE RECORD ROUNDS\n"
                    "       device-bench probe RECORD DEVICE_ID\n");
    return 2;
}

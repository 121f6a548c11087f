/* The measuring client of `make bench`. Every mode interleaves the things it compares round by
 * round (rotating their order) so that a noisy machine slows them alike, and prints one JSON
 * object on stdout.
 *
 *   layer-client latency ADDR ROUNDS URL
 *       round trips: the bus daemon's Peer.Ping (the floor), Echo on the C reference service and
 *       on the Swift layer (inline and async handlers), CanOpenURL(URL) on the C reference
 *       service and on schemebridged.
 *   layer-client applinks ADDR ROUNDS URL
 *       ResolveLink(URL) (an https link whose host's record is in the cache: no network) next to
 *       CanOpenURL(URL) on schemebridged and Peer.Ping (issue 41; Benchmarks/applinks.sh).
 *   layer-client open ADDR ROUNDS URL
 *       OpenURL(URL) round trips (the handler spawned) on the C reference and on schemebridged,
 *       and Peer.Ping.
 *   layer-client reply ADDR ROUNDS DBUS_URL SPAWN_URL
 *       request → reply round trips (issue 13): OpenURLWithReply(URL, {}) until the request's
 *       Response arrives, to a running D-Bus-activatable handler (DBUS_URL) and to a spawned one
 *       (SPAWN_URL; both Benchmarks/c/reply-handler), next to plain OpenURL of the same URLs (the
 *       service's Open call / spawn) and Peer.Ping.
 *   layer-client throughput ADDR SECONDS CLIENTS ROUNDS URL
 *       CLIENTS processes, each with its own connection, call as fast as they can for SECONDS:
 *       CanOpenURL(URL) on the C reference, on schemebridged, and the bus's Peer.Ping.
 *   layer-client startup ADDR ROUNDS URL [LABEL=]NAME CMD... [:: [LABEL=]NAME CMD...]...
 *       spawn CMD, call CanOpenURL(URL) on bus name NAME until it answers true (every POLL_US µs, default 200),
 *       read the process's VmRSS, stop it (SIGTERM) and wait until NAME is free again.
 *   layer-client live ADDR ROUNDS DIR GIO_DIR
 *       write a new desktop entry into DIR and call CanOpenURL on schemebridged in a tight loop
 *       until it is true; baseline: write one into GIO_DIR, run update-desktop-database on it and
 *       `gio mime x-scheme-handler/S` until gio names it (what GLib needs to see a new handler).
 *   layer-client openfile ADDR ROUNDS INBOX URL FILE...
 *       OpenFile(fd, {}) round trips of each FILE (opened for each call, as the CLI does) next to
 *       OpenURL(URL), interleaved, on one connection (a caller the service knows already): what
 *       the service adds for a document (detection, the copy into the Inbox, its launch). The
 *       Inbox INBOX is emptied after every call, outside the timed part.
 *   layer-client proc ROUNDS [--clean DIR] NAME CMD... [:: NAME CMD...]...
 *       whole-process time of each command (spawned, waited for; stdout/stderr to /dev/null).
 *       With --clean, the files in DIR (an app's Inbox that the commands fill) are removed after
 *       every command, outside the timed part.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SB_NAME "io.github.schemebridge.SchemeBridge1"
#define SB_PATH "/io/github/schemebridge/SchemeBridge1"
#define SB_IFACE "io.github.schemebridge.SchemeBridge1"
#define C_NAME "io.github.schemebridge.BenchC"
#define SWIFT_NAME "io.github.schemebridge.BenchSwift"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void sort(double *v, int n) { qsort(v, n, sizeof(double), cmp); }
static double p50(double *v, int n) { return v[n / 2]; }
static double p90(double *v, int n) { return v[n * 9 / 10 < n ? n * 9 / 10 : n - 1]; }
static double p99(double *v, int n) { return v[n * 99 / 100 < n ? n * 99 / 100 : n - 1]; }

static DBusConnection *connect_bus(const char *address) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(address, &err);
    if (!c || !dbus_bus_register(c, &err)) { fprintf(stderr, "layer-client: %s\n", err.message); exit(1); }
    return c;
}

/* ---- what a round trip calls ---- */

typedef struct {
    const char *name, *dest, *path, *iface, *member;
    int with_url;  /* 1: one string argument (the URL / echo text) */
    int reply;     /* 1: OpenURLWithReply(url, {}), timed until the request's Response */
    const char *url; /* the URL of this call, instead of the mode's: each call adds "&n=<serial>" */
} Call;

static const Call PING = {"bus_ping", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping", 0};
static const Call C_ECHO = {"c_service_echo", C_NAME, "/bench", "io.github.schemebridge.Bench", "Echo", 1};
static const Call SWIFT_INLINE = {"swift_inline_echo", SWIFT_NAME, "/bench", "io.github.schemebridge.Bench", "Echo", 1};
static const Call SWIFT_ASYNC = {"swift_async_echo", SWIFT_NAME, "/bench", "io.github.schemebridge.Bench", "EchoAsync", 1};
static const Call C_CAN = {"c_service_canopen", C_NAME, SB_PATH, SB_IFACE, "CanOpenURL", 1};
static const Call SB_CAN = {"schemebridged_canopen", SB_NAME, SB_PATH, SB_IFACE, "CanOpenURL", 1};
static const Call C_OPEN = {"c_service_openurl", C_NAME, SB_PATH, SB_IFACE, "OpenURL", 1};
static const Call SB_OPEN = {"schemebridged_openurl", SB_NAME, SB_PATH, SB_IFACE, "OpenURL", 1};
static const Call SB_RESOLVE = {"schemebridged_resolvelink", SB_NAME, SB_PATH, SB_IFACE, "ResolveLink", 1};
/* reply mode: the URLs are set from the command line */
static Call SB_OPEN_DBUS = {"schemebridged_openurl_dbus_handler", SB_NAME, SB_PATH, SB_IFACE, "OpenURL", 1};
static Call SB_REPLY_DBUS = {"schemebridged_reply_dbus_handler", SB_NAME, SB_PATH, SB_IFACE, "OpenURLWithReply", 1, 1};
static Call SB_OPEN_SPAWN = {"schemebridged_openurl_spawned_handler", SB_NAME, SB_PATH, SB_IFACE, "OpenURL", 1};
static Call SB_REPLY_SPAWN = {"schemebridged_reply_spawned_handler", SB_NAME, SB_PATH, SB_IFACE, "OpenURLWithReply", 1, 1};

#define REQUEST_IFACE "io.github.schemebridge.Request1"

/* Waits for the Response signal of the request at `path` (unicast to us: no match rule needed);
 * exits unless its code is 0. */
static void wait_response(DBusConnection *c, const char *path, const char *name) {
    double t0 = now_us();
    for (;;) {
        DBusMessage *m = dbus_connection_pop_message(c);
        if (!m) {
            if (now_us() - t0 > 10e6) { fprintf(stderr, "layer-client: %s: no Response in 10 s\n", name); exit(1); }
            if (!dbus_connection_read_write(c, 1000)) { fprintf(stderr, "layer-client: %s: disconnected\n", name); exit(1); }
            continue;
        }
        int ours = dbus_message_is_signal(m, REQUEST_IFACE, "Response") && dbus_message_get_path(m) &&
                   strcmp(dbus_message_get_path(m), path) == 0;
        if (ours) {
            DBusMessageIter it;
            dbus_uint32_t code = 99;
            if (dbus_message_iter_init(m, &it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_UINT32)
                dbus_message_iter_get_basic(&it, &code);
            dbus_message_unref(m);
            if (code != 0) { fprintf(stderr, "layer-client: %s: Response code %u\n", name, code); exit(1); }
            return;
        }
        dbus_message_unref(m);
    }
}

/* One call; returns its round-trip time in µs. Exits on an error, or when a boolean reply is
 * false (every boolean asked for here must be true). */
static double once(DBusConnection *c, const Call *k, const char *url) {
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *m = dbus_message_new_method_call(k->dest, k->path, k->iface, k->member);
    /* A new URL each call, as each request of an app is: the service's hand-back check asks the
     * bus for the pid of every recent D-Bus activation of the same URL (RecentLaunches), so
     * the same URL again and again would measure that list (up to 512 lookups), not a request. */
    static long serial;
    char numbered[1024];
    if (k->url) {
        snprintf(numbered, sizeof numbered, "%s&n=%ld", k->url, ++serial);
        url = numbered;
    }
    if (k->with_url) dbus_message_append_args(m, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID);
    if (k->reply) { /* options: {} */
        DBusMessageIter it, dict;
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
        dbus_message_iter_close_container(&it, &dict);
    }
    double t0 = now_us();
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 10000, &err);
    double t1 = now_us();
    dbus_message_unref(m);
    if (!r) { fprintf(stderr, "layer-client: %s: %s: %s\n", k->name, err.name, err.message); exit(1); }
    if (k->reply) {
        const char *path = NULL;
        if (!dbus_message_get_args(r, NULL, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID)) {
            fprintf(stderr, "layer-client: %s: no request path\n", k->name);
            exit(1);
        }
        wait_response(c, path, k->name);
        t1 = now_us();
        dbus_message_unref(r);
        return t1 - t0;
    }
    dbus_bool_t b = 1;
    if (dbus_message_get_args(r, NULL, DBUS_TYPE_BOOLEAN, &b, DBUS_TYPE_INVALID) && !b) {
        fprintf(stderr, "layer-client: %s(%s) answered false\n", k->name, url);
        exit(1);
    }
    dbus_message_unref(r);
    return t1 - t0;
}

/* CanOpenURL(url) on `dest`, not auto-starting: 1 true, 0 false, -1 error (no owner yet). */
static int can_open(DBusConnection *c, const char *dest, const char *url) {
    DBusMessage *m = dbus_message_new_method_call(dest, SB_PATH, SB_IFACE, "CanOpenURL");
    dbus_message_set_auto_start(m, 0);
    dbus_message_append_args(m, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 10000, &err);
    dbus_message_unref(m);
    if (!r) { dbus_error_free(&err); return -1; }
    dbus_bool_t b = 0;
    int ok = dbus_message_get_args(r, NULL, DBUS_TYPE_BOOLEAN, &b, DBUS_TYPE_INVALID);
    dbus_message_unref(r);
    return ok ? (b != 0) : -1;
}

static int name_has_owner(DBusConnection *c, const char *name) {
    DBusError err;
    dbus_error_init(&err);
    int r = dbus_bus_name_has_owner(c, name, &err);
    dbus_error_free(&err);
    return r;
}

static void print_samples(const char *name, double *v, int n, int first) {
    sort(v, n);
    printf("%s\"%s\": {\"p50_us\": %.1f, \"p99_us\": %.1f}", first ? "" : ", ", name, p50(v, n), p99(v, n));
}

/* ---- latency / open: interleaved round trips ---- */

static int interleaved(const char *address, int rounds, const char *url, const Call **kinds, int n) {
    DBusConnection *c = connect_bus(address);
    for (int i = 0; i < rounds / 10 + 10; i++)
        for (int k = 0; k < n; k++) once(c, kinds[k], url); /* warm-up */
    double *samples[n];
    for (int k = 0; k < n; k++) samples[k] = calloc(rounds, sizeof(double));
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < n; j++) {
            int k = (i + j) % n; /* rotate the order every round */
            samples[k][i] = once(c, kinds[k], url);
        }
    printf("{\"rounds\": %d, ", rounds);
    for (int k = 0; k < n; k++) print_samples(kinds[k]->name, samples[k], rounds, k == 0);
    printf("}\n");
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

/* ---- throughput: CLIENTS processes per measurement ---- */

static long run_clients(const char *address, const Call *k, const char *url, int clients, double seconds) {
    int ready[2], go[2], result[2];
    if (pipe(ready) || pipe(go) || pipe(result)) { perror("pipe"); exit(1); }
    pid_t pids[clients];
    for (int i = 0; i < clients; i++) {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); exit(1); }
        if (pid == 0) {
            close(ready[0]); close(go[1]); close(result[0]);
            DBusConnection *c = connect_bus(address);
            once(c, k, url);
            char byte = 1;
            if (write(ready[1], &byte, 1) != 1) _exit(1);
            double deadline;
            if (read(go[0], &deadline, sizeof deadline) != sizeof deadline) _exit(1);
            long count = 0;
            while (now_us() < deadline) { once(c, k, url); count++; }
            if (write(result[1], &count, sizeof count) != sizeof count) _exit(1);
            _exit(0);
        }
        pids[i] = pid;
    }
    close(ready[1]); close(go[0]); close(result[1]);
    for (int i = 0; i < clients; i++) {
        char byte;
        if (read(ready[0], &byte, 1) != 1) { fprintf(stderr, "layer-client: a client failed to start\n"); exit(1); }
    }
    double deadline = now_us() + seconds * 1e6;
    for (int i = 0; i < clients; i++)
        if (write(go[1], &deadline, sizeof deadline) != sizeof deadline) exit(1);
    long total = 0;
    for (int i = 0; i < clients; i++) {
        long count;
        if (read(result[0], &count, sizeof count) != sizeof count) { fprintf(stderr, "layer-client: a client failed\n"); exit(1); }
        total += count;
    }
    for (int i = 0; i < clients; i++) waitpid(pids[i], NULL, 0);
    close(ready[0]); close(go[1]); close(result[0]);
    return total;
}

static int throughput(const char *address, double seconds, int clients, int rounds, const char *url) {
    const Call *kinds[] = {&PING, &C_CAN, &SB_CAN};
    enum { N = 3 };
    double rate[N][rounds];
    run_clients(address, &SB_CAN, url, clients, 0.2); /* warm-up */
    run_clients(address, &C_CAN, url, clients, 0.2);
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < N; j++) {
            int k = (i + j) % N;
            rate[k][i] = run_clients(address, kinds[k], url, clients, seconds) / seconds;
        }
    printf("{\"clients\": %d, \"seconds\": %.2f, \"rounds\": %d", clients, seconds, rounds);
    for (int k = 0; k < N; k++) {
        printf(", \"%s\": {\"rounds\": [", kinds[k]->name);
        for (int i = 0; i < rounds; i++) printf("%s%.0f", i ? ", " : "", rate[k][i]);
        sort(rate[k], rounds);
        printf("], \"median_calls_per_s\": %.0f}", rate[k][rounds / 2]);
    }
    printf("}\n");
    return 0;
}

/* ---- spawning commands ---- */

typedef struct {
    const char *name;
    char **argv;
} Command;

/* Splits "NAME CMD... :: NAME CMD..." (argv is modified: each "::" becomes NULL). */
static int parse_commands(int argc, char **argv, Command *out, int max) {
    int n = 0, i = 0;
    while (i < argc && n < max) {
        out[n].name = argv[i++];
        out[n].argv = &argv[i];
        while (i < argc && strcmp(argv[i], "::") != 0) i++;
        if (i < argc) argv[i++] = NULL;
        if (out[n].argv[0] == NULL) { fprintf(stderr, "layer-client: '%s' has no command\n", out[n].name); exit(1); }
        n++;
    }
    if (i < argc) { fprintf(stderr, "layer-client: more than %d commands\n", max); exit(1); }
    return n;
}

static pid_t start(char **argv, int quiet) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (quiet) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) { fprintf(stderr, "layer-client: cannot run %s: %s\n", argv[0], strerror(rc)); exit(1); }
    return pid;
}

static int wait_for(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static long rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) { v = atol(line + 6); break; }
    fclose(f);
    return v;
}

/* ---- startup ---- */

static int startup(const char *address, int rounds, const char *url, int argc, char **argv) {
    /* POLL_US: the poll interval (default 0.2 ms; 1 ms gives the same figures on this machine). */
    const char *poll_env = getenv("POLL_US");
    int poll_us = poll_env ? atoi(poll_env) : 200;
    Command cmds[8];
    int n = parse_commands(argc, argv, cmds, 8);
    /* NAME may be LABEL=BUS_NAME, to start two builds of one service under different labels. */
    const char *label[8];
    for (int k = 0; k < n; k++) {
        char *eq = strchr(cmds[k].name, '=');
        label[k] = cmds[k].name;
        if (eq) { *eq = 0; cmds[k].name = eq + 1; }
    }
    DBusConnection *c = connect_bus(address);
    double ms[n][rounds];
    double rss[n][rounds];
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < n; j++) {
            int k = (i + j) % n;
            double t0 = now_us();
            while (name_has_owner(c, cmds[k].name)) {
                if (now_us() - t0 > 10e6) { fprintf(stderr, "layer-client: %s is still owned by another process\n", cmds[k].name); exit(1); }
                usleep(1000);
            }
            t0 = now_us();
            pid_t pid = start(cmds[k].argv, 1);
            int r;
            while ((r = can_open(c, cmds[k].name, url)) != 1) {
                if (r == 0) { fprintf(stderr, "layer-client: %s answered false for %s\n", cmds[k].name, url); exit(1); }
                if (waitpid(pid, NULL, WNOHANG) == pid) { fprintf(stderr, "layer-client: %s exited before answering\n", cmds[k].name); exit(1); }
                if (now_us() - t0 > 30e6) { fprintf(stderr, "layer-client: %s did not answer in 30 s\n", cmds[k].name); exit(1); }
                usleep(poll_us);
            }
            ms[k][i] = (now_us() - t0) / 1000;
            rss[k][i] = rss_kib(pid);
            kill(pid, SIGTERM);
            wait_for(pid);
        }
    printf("{\"rounds\": %d, \"poll_us\": %d", rounds, poll_us);
    for (int k = 0; k < n; k++) {
        printf(", \"%s\": {\"startup_ms\": [", label[k]);
        for (int i = 0; i < rounds; i++) printf("%s%.1f", i ? ", " : "", ms[k][i]);
        printf("], \"rss_kib\": [");
        for (int i = 0; i < rounds; i++) printf("%s%.0f", i ? ", " : "", rss[k][i]);
        sort(ms[k], rounds);
        sort(rss[k], rounds);
        printf("], \"p50_startup_ms\": %.1f, \"p50_rss_kib\": %.0f}", p50(ms[k], rounds), p50(rss[k], rounds));
    }
    printf("}\n");
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

/* ---- live update ---- */

static void write_entry(const char *dir, const char *id, const char *scheme) {
    char path[4096], text[512];
    snprintf(path, sizeof path, "%s/%s", dir, id);
    int len = snprintf(text, sizeof text,
                       "[Desktop Entry]\nType=Application\nName=Live\nExec=/bin/true %%u\nMimeType=x-scheme-handler/%s;\n", scheme);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text, len) != len) { perror(path); exit(1); }
    close(fd);
}

/* Runs argv, returns 1 when its stdout contains `needle`. */
static int output_contains(char **argv, const char *needle) {
    int p[2];
    if (pipe(p)) exit(1);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) { perror(argv[0]); exit(1); }
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    char buf[8192];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(p[0], buf + n, sizeof buf - 1 - n)) > 0) n += r;
    buf[n] = 0;
    close(p[0]);
    wait_for(pid);
    return strstr(buf, needle) != NULL;
}

static int live(const char *address, int rounds, const char *dir, const char *gio_dir) {
    DBusConnection *c = connect_bus(address);
    double sb[rounds], gio[rounds];
    long calls = 0;
    int me = getpid();
    for (int i = 0; i < rounds; i++) {
        for (int j = 0; j < 2; j++) {
            int which = (i + j) % 2;
            char id[128], scheme[64], url[128];
            snprintf(scheme, sizeof scheme, "live%d-%d-%d", me, i, which);
            snprintf(id, sizeof id, "%s.desktop", scheme);
            snprintf(url, sizeof url, "%s:x", scheme);
            double t0 = now_us();
            if (which == 0) {
                write_entry(dir, id, scheme);
                while (can_open(c, SB_NAME, url) != 1) {
                    calls++;
                    if (now_us() - t0 > 10e6) { fprintf(stderr, "layer-client: %s never became visible\n", id); exit(1); }
                }
                sb[i] = (now_us() - t0) / 1000;
            } else {
                write_entry(gio_dir, id, scheme);
                char mime[128];
                snprintf(mime, sizeof mime, "x-scheme-handler/%s", scheme);
                char *udd[] = {"update-desktop-database", (char *)gio_dir, NULL};
                char *q[] = {"gio", "mime", mime, NULL};
                for (;;) {
                    wait_for(start(udd, 1));
                    if (output_contains(q, id)) break;
                    if (now_us() - t0 > 30e6) { fprintf(stderr, "layer-client: gio never saw %s\n", id); exit(1); }
                }
                gio[i] = (now_us() - t0) / 1000;
            }
        }
    }
    sort(sb, rounds);
    sort(gio, rounds);
    printf("{\"rounds\": %d, \"schemebridged\": {\"p50_ms\": %.2f, \"max_ms\": %.2f, \"canopen_calls\": %ld}, "
           "\"gio_update_desktop_database\": {\"p50_ms\": %.2f, \"max_ms\": %.2f}}\n",
           rounds, p50(sb, rounds), sb[rounds - 1], calls, p50(gio, rounds), gio[rounds - 1]);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

/* ---- documents: OpenFile round trips ---- */

static void clean_dir(const char *dir);

/* One OpenFile(fd of `path`, {}) round trip in µs; exits on an error. */
static double open_file_once(DBusConnection *c, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { fprintf(stderr, "layer-client: cannot open %s: %s\n", path, strerror(errno)); exit(1); }
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "OpenFile");
    DBusMessageIter it, dict;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_UNIX_FD, &fd); /* libdbus sends a duplicate */
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
    dbus_message_iter_close_container(&it, &dict);
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_us();
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 10000, &err);
    double t1 = now_us();
    dbus_message_unref(m);
    close(fd);
    if (!r) { fprintf(stderr, "layer-client: OpenFile(%s): %s: %s\n", path, err.name, err.message); exit(1); }
    dbus_message_unref(r);
    return t1 - t0;
}

static int open_files(const char *address, int rounds, const char *inbox, const char *url, int nfiles, char **files) {
    DBusConnection *c = connect_bus(address);
    int n = nfiles + 1; /* 0: OpenURL, 1…: the files */
    for (int i = 0; i < rounds / 10 + 5; i++) /* warm-up */
        for (int k = 0; k < n; k++) {
            if (k == 0) once(c, &SB_OPEN, url);
            else open_file_once(c, files[k - 1]);
            clean_dir(inbox);
        }
    double *samples[n];
    for (int k = 0; k < n; k++) samples[k] = calloc(rounds, sizeof(double));
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < n; j++) {
            int k = (i + j) % n;
            samples[k][i] = k == 0 ? once(c, &SB_OPEN, url) : open_file_once(c, files[k - 1]);
            clean_dir(inbox);
        }
    printf("{\"rounds\": %d, ", rounds);
    sort(samples[0], rounds);
    printf("\"schemebridged_openurl\": {\"p50_us\": %.1f, \"p90_us\": %.1f}, \"files\": [", p50(samples[0], rounds), p90(samples[0], rounds));
    for (int k = 1; k < n; k++) {
        struct stat st;
        long long bytes = stat(files[k - 1], &st) == 0 ? (long long)st.st_size : -1;
        sort(samples[k], rounds);
        printf("%s{\"path\": \"%s\", \"bytes\": %lld, \"p50_us\": %.1f, \"p90_us\": %.1f}", k > 1 ? ", " : "", files[k - 1], bytes,
               p50(samples[k], rounds), p90(samples[k], rounds));
    }
    printf("]}\n");
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

/* ---- whole processes ---- */

/* Removes the files in `dir` (not its subfolders; a missing folder is empty). */
static void clean_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_type != DT_DIR) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

static int proc(int rounds, int argc, char **argv) {
    const char *clean = NULL;
    if (argc >= 2 && strcmp(argv[0], "--clean") == 0) {
        clean = argv[1];
        argc -= 2;
        argv += 2;
    }
    Command cmds[16];
    int n = parse_commands(argc, argv, cmds, 16);
    double ms[n][rounds];
    int failures[n];
    memset(failures, 0, sizeof failures);
    for (int k = 0; k < n; k++) { /* warm-up (page cache) */
        wait_for(start(cmds[k].argv, 1));
        if (clean) clean_dir(clean);
    }
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < n; j++) {
            int k = (i + j) % n;
            double t0 = now_us();
            if (wait_for(start(cmds[k].argv, 1)) != 0) failures[k]++;
            ms[k][i] = (now_us() - t0) / 1000;
            if (clean) clean_dir(clean);
        }
    printf("{\"rounds\": %d", rounds);
    for (int k = 0; k < n; k++) {
        sort(ms[k], rounds);
        printf(", \"%s\": {\"p50_ms\": %.2f, \"p90_ms\": %.2f, \"p99_ms\": %.2f, \"failures\": %d}", cmds[k].name, p50(ms[k], rounds),
               p90(ms[k], rounds), p99(ms[k], rounds), failures[k]);
    }
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    const char *usage = "usage: layer-client latency|open|applinks ADDR ROUNDS URL | reply ADDR ROUNDS DBUS_URL SPAWN_URL | throughput ADDR SECONDS CLIENTS ROUNDS URL |"
                        " startup ADDR ROUNDS URL NAME CMD... [:: NAME CMD...] | live ADDR ROUNDS DIR GIO_DIR | openfile ADDR ROUNDS INBOX URL FILE... |"
                        " proc ROUNDS [--clean DIR] NAME CMD... [:: NAME CMD...]\n";
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 5 && strcmp(argv[1], "latency") == 0) {
        const Call *kinds[] = {&PING, &C_ECHO, &SWIFT_INLINE, &SWIFT_ASYNC, &C_CAN, &SB_CAN};
        return interleaved(argv[2], atoi(argv[3]), argv[4], kinds, 6);
    }
    if (argc >= 5 && strcmp(argv[1], "applinks") == 0) {
        const Call *kinds[] = {&PING, &SB_CAN, &SB_RESOLVE};
        return interleaved(argv[2], atoi(argv[3]), argv[4], kinds, 3);
    }
    if (argc >= 5 && strcmp(argv[1], "open") == 0) {
        const Call *kinds[] = {&PING, &C_OPEN, &SB_OPEN};
        return interleaved(argv[2], atoi(argv[3]), argv[4], kinds, 3);
    }
    if (argc >= 6 && strcmp(argv[1], "reply") == 0) {
        SB_OPEN_DBUS.url = SB_REPLY_DBUS.url = argv[4];
        SB_OPEN_SPAWN.url = SB_REPLY_SPAWN.url = argv[5];
        const Call *kinds[] = {&PING, &SB_OPEN_DBUS, &SB_REPLY_DBUS, &SB_OPEN_SPAWN, &SB_REPLY_SPAWN};
        return interleaved(argv[2], atoi(argv[3]), argv[4], kinds, 5);
    }
    if (argc >= 7 && strcmp(argv[1], "throughput") == 0)
        return throughput(argv[2], atof(argv[3]), atoi(argv[4]), atoi(argv[5]), argv[6]);
    if (argc >= 7 && strcmp(argv[1], "startup") == 0)
        return startup(argv[2], atoi(argv[3]), argv[4], argc - 5, argv + 5);
    if (argc >= 6 && strcmp(argv[1], "live") == 0) return live(argv[2], atoi(argv[3]), argv[4], argv[5]);
    if (argc >= 7 && strcmp(argv[1], "openfile") == 0) return open_files(argv[2], atoi(argv[3]), argv[4], argv[5], argc - 6, argv + 6);
    if (argc >= 4 && strcmp(argv[1], "proc") == 0) return proc(atoi(argv[2]), argc - 3, argv + 3);
    fputs(usage, stderr);
    return 1;
}

/* A C libdbus reference service: the baseline SchemeBridge is measured against.
 *
 * Owns a bus name (default io.github.schemebridge.BenchC) and answers, with libdbus's own
 * blocking main loop:
 *   - io.github.schemebridge.Bench.Echo(s) -> s at /bench (the layer baseline);
 *   - io.github.schemebridge.SchemeBridge1.CanOpenURL(s) -> b and OpenURL(s) -> b at
 *     /io/github/schemebridge/SchemeBridge1, the same interface shape as schemebridged.
 *
 * At start it scans $XDG_DATA_HOME/applications and each $XDG_DATA_DIRS/.../applications
 * (subfolders give vendor-name ids; a higher directory masks the same id below), keeps the
 * entries with Type=Application, not Hidden, with an Exec, and builds a hash table
 * scheme -> handler from their MimeType=x-scheme-handler/... lines (first directory wins;
 * within one directory the smallest desktop id, as schemebridged orders them). Exec is split
 * once at start (spaces, double quotes; %u/%U become the URL, %% a percent, other field codes
 * are dropped; no %u appends the URL).
 *
 * CanOpenURL: validate the URL (scheme syntax, no control characters, <= 64 KiB), hash lookup.
 * OpenURL: the same, then posix_spawn of the handler's argv the way schemebridged does it
 * (new session, empty signal mask, default dispositions, stdio on /dev/null, closefrom 3),
 * reply true, emit URLHandled; children are reaped by a SIGCHLD handler.
 *
 * Not a product: no mimeapps.list, no TryExec, no inotify, no policy. That is the point —
 * it is the least a C service must do to answer the same calls.
 *
 * Usage: ref-service ADDRESS [BUS_NAME] */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define IFACE "io.github.schemebridge.SchemeBridge1"
#define PATH "/io/github/schemebridge/SchemeBridge1"
#define ERR_PREFIX IFACE ".Error."
#define MAX_URL (64 * 1024)

extern char **environ;

/* ---- handlers and the scheme table ---- */

typedef struct {
    char *id;
    int level;        /* directory precedence, 0 = highest */
    char **argv;      /* Exec split; a NULL slot marks where the URL goes */
    int argc, url_slot;
} Handler;

typedef struct {
    char *scheme;
    Handler *handler;
} Slot;

static Slot *table;
static size_t table_cap, table_len;

static uint64_t hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

static Slot *find_slot(Slot *t, size_t cap, const char *s, size_t n) {
    size_t i = hash(s, n) & (cap - 1);
    while (t[i].scheme && !(strlen(t[i].scheme) == n && memcmp(t[i].scheme, s, n) == 0)) i = (i + 1) & (cap - 1);
    return &t[i];
}

static void table_put(const char *scheme, Handler *h) {
    if ((table_len + 1) * 2 > table_cap) {
        size_t cap = table_cap ? table_cap * 2 : 1024;
        Slot *t = calloc(cap, sizeof(Slot));
        for (size_t i = 0; i < table_cap; i++)
            if (table[i].scheme) *find_slot(t, cap, table[i].scheme, strlen(table[i].scheme)) = table[i];
        free(table);
        table = t;
        table_cap = cap;
    }
    Slot *s = find_slot(table, table_cap, scheme, strlen(scheme));
    if (!s->scheme) {
        s->scheme = strdup(scheme);
        s->handler = h;
        table_len++;
    } else if (h->level < s->handler->level || (h->level == s->handler->level && strcmp(h->id, s->handler->id) < 0)) {
        s->handler = h;
    }
}

static Handler *lookup(const char *scheme, size_t n) {
    if (!table_cap) return NULL;
    return find_slot(table, table_cap, scheme, n)->handler;
}

/* Desktop ids already seen in a higher directory (masking); a second, simpler table. */
static char **seen;
static size_t seen_cap, seen_len;

static int seen_add(const char *id) {
    if ((seen_len + 1) * 2 > seen_cap) {
        size_t cap = seen_cap ? seen_cap * 2 : 1024;
        char **t = calloc(cap, sizeof(char *));
        for (size_t i = 0; i < seen_cap; i++)
            if (seen[i]) {
                size_t j = hash(seen[i], strlen(seen[i])) & (cap - 1);
                while (t[j]) j = (j + 1) & (cap - 1);
                t[j] = seen[i];
            }
        free(seen);
        seen = t;
        seen_cap = cap;
    }
    size_t j = hash(id, strlen(id)) & (seen_cap - 1);
    while (seen[j]) {
        if (strcmp(seen[j], id) == 0) return 0;
        j = (j + 1) & (seen_cap - 1);
    }
    seen[j] = strdup(id);
    seen_len++;
    return 1;
}

/* ---- desktop entries ---- */

static int split_exec(const char *exec, Handler *h) {
    int cap = 8;
    h->argv = calloc(cap, sizeof(char *));
    h->argc = 0;
    h->url_slot = -1;
    const char *p = exec;
    char *buf = malloc(strlen(exec) + 1);
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t n = 0;
        int quoted = 0, url = 0;
        while (*p && (quoted || *p != ' ')) {
            if (*p == '"') { quoted = !quoted; p++; continue; }
            if (quoted && *p == '\\' && p[1]) { buf[n++] = p[1]; p += 2; continue; }
            if (*p == '%' && p[1]) {
                if (p[1] == '%') buf[n++] = '%';
                else if (p[1] == 'u' || p[1] == 'U') url = 1;
                p += 2;
                continue;
            }
            buf[n++] = *p++;
        }
        if (h->argc + 2 >= cap) h->argv = realloc(h->argv, (cap *= 2) * sizeof(char *));
        if (url && n == 0 && h->url_slot < 0) { h->url_slot = h->argc; h->argv[h->argc++] = NULL; continue; }
        if (n == 0) continue;
        buf[n] = 0;
        h->argv[h->argc++] = strdup(buf);
    }
    free(buf);
    if (h->argc == 0) return 0;
    if (h->url_slot < 0) { h->url_slot = h->argc; h->argv[h->argc++] = NULL; }
    return 1;
}

static void read_entry(const char *path, const char *id, int level) {
    if (!seen_add(id)) return;  /* masked by a higher directory */
    FILE *f = fopen(path, "r");
    if (!f) return;
    char *line = NULL, *exec = NULL, *mime = NULL;
    size_t cap = 0;
    ssize_t len;
    int in_group = 0, app = 0, hidden = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n') line[--len] = 0;
        if (line[0] == '[') { in_group = strcmp(line, "[Desktop Entry]") == 0; continue; }
        if (!in_group) continue;
        if (strncmp(line, "Type=", 5) == 0) app = strcmp(line + 5, "Application") == 0;
        else if (strncmp(line, "Hidden=", 7) == 0) hidden = strcmp(line + 7, "true") == 0;
        else if (strncmp(line, "Exec=", 5) == 0) { free(exec); exec = strdup(line + 5); }
        else if (strncmp(line, "MimeType=", 9) == 0) { free(mime); mime = strdup(line + 9); }
    }
    free(line);
    fclose(f);
    if (app && !hidden && exec && mime) {
        Handler *h = calloc(1, sizeof(Handler));
        h->id = strdup(id);
        h->level = level;
        if (split_exec(exec, h)) {
            for (char *save = NULL, *t = strtok_r(mime, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
                if (strncasecmp(t, "x-scheme-handler/", 17) != 0 || !t[17]) continue;
                for (char *c = t + 17; *c; c++) if (*c >= 'A' && *c <= 'Z') *c += 32;
                table_put(t + 17, h);
            }
        }
    }
    free(exec);
    free(mime);
}

static void scan(const char *dir, const char *prefix, int level) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096], id[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
            struct stat st;
            if (stat(path, &st) != 0) continue;
            is_dir = S_ISDIR(st.st_mode);
        }
        snprintf(id, sizeof id, "%s%s", prefix, e->d_name);
        if (is_dir) {
            char sub[1024];
            snprintf(sub, sizeof sub, "%s-", id);
            scan(path, sub, level);
        } else {
            size_t n = strlen(id);
            if (n > 8 && strcmp(id + n - 8, ".desktop") == 0) read_entry(path, id, level);
        }
    }
    closedir(d);
}

static void build_table(void) {
    const char *home = getenv("HOME");
    const char *data_home = getenv("XDG_DATA_HOME");
    const char *data_dirs = getenv("XDG_DATA_DIRS");
    char dir[4096];
    int level = 0;
    if (data_home && *data_home) snprintf(dir, sizeof dir, "%s/applications", data_home);
    else snprintf(dir, sizeof dir, "%s/.local/share/applications", home ? home : "/");
    scan(dir, "", level++);
    char *dirs = strdup(data_dirs && *data_dirs ? data_dirs : "/usr/local/share:/usr/share");
    for (char *save = NULL, *t = strtok_r(dirs, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        snprintf(dir, sizeof dir, "%s/applications", t);
        scan(dir, "", level++);
    }
    free(dirs);
}

/* ---- URLs ---- */

/* Validates `url`; on success returns the scheme length (lower-cased into `scheme`), else 0
 * with `why` set. */
static size_t parse_url(const char *url, char *scheme, size_t cap, const char **why) {
    size_t n = strlen(url);
    if (n == 0) { *why = "the URL is empty"; return 0; }
    if (n > MAX_URL) { *why = "the URL is longer than 64 KiB"; return 0; }
    const unsigned char *u = (const unsigned char *)url;
    for (size_t i = 0; i < n; i++) {
        if (u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f) ||
            (u[i] == 0xe2 && i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))) {
            *why = "the URL contains a control character";
            return 0;
        }
    }
    const char *colon = memchr(url, ':', n);
    size_t s = colon ? (size_t)(colon - url) : 0;
    if (s == 0) { *why = "the URL has no scheme"; return 0; }
    if (s >= cap) { *why = "the scheme is too long"; return 0; }
    for (size_t i = 0; i < s; i++) {
        char c = url[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) {
            *why = "the URL's scheme is not valid";
            return 0;
        }
        scheme[i] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
    }
    scheme[s] = 0;
    return s;
}

/* ---- launching ---- */

static void on_sigchld(int sig) {
    (void)sig;
    int saved = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    errno = saved;
}

static int spawn(Handler *h, const char *url, pid_t *pid) {
    char *argv[h->argc + 1];
    for (int i = 0; i < h->argc; i++) argv[i] = i == h->url_slot ? (char *)url : h->argv[i];
    argv[h->argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
    int rc = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* ---- D-Bus ---- */

static DBusMessage *error_reply(DBusMessage *m, const char *name, const char *text) {
    return dbus_message_new_error(m, name, text);
}

static DBusHandlerResult handle(DBusConnection *c, DBusMessage *m, void *data) {
    (void)data;
    if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *s = NULL;
    DBusMessage *reply = NULL;
    int can = dbus_message_is_method_call(m, IFACE, "CanOpenURL");
    int open = !can && dbus_message_is_method_call(m, IFACE, "OpenURL");
    if (dbus_message_is_method_call(m, "io.github.schemebridge.Bench", "Echo")) {
        if (!dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID))
            reply = error_reply(m, DBUS_ERROR_INVALID_ARGS, "Echo takes a string");
        else {
            reply = dbus_message_new_method_return(m);
            dbus_message_append_args(reply, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
        }
    } else if (can || open) {
        const char *path = dbus_message_get_path(m);
        char scheme[256];
        const char *why = NULL;
        size_t n;
        if (!path || strcmp(path, PATH) != 0)
            reply = error_reply(m, DBUS_ERROR_UNKNOWN_OBJECT, "no such object");
        else if (!dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID))
            reply = error_reply(m, DBUS_ERROR_INVALID_ARGS, "takes a string");
        else if (!(n = parse_url(s, scheme, sizeof scheme, &why)))
            reply = error_reply(m, ERR_PREFIX "InvalidURL", why);
        else {
            Handler *h = lookup(scheme, n);
            if (can) {
                dbus_bool_t b = h != NULL;
                reply = dbus_message_new_method_return(m);
                dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &b, DBUS_TYPE_INVALID);
            } else if (!h) {
                reply = error_reply(m, ERR_PREFIX "NoHandler", "no application handles the scheme");
            } else {
                pid_t pid;
                int rc = spawn(h, s, &pid);
                if (rc != 0) {
                    reply = error_reply(m, ERR_PREFIX "LaunchFailed", strerror(rc));
                } else {
                    dbus_bool_t b = 1;
                    reply = dbus_message_new_method_return(m);
                    dbus_message_append_args(reply, DBUS_TYPE_BOOLEAN, &b, DBUS_TYPE_INVALID);
                    /* URLHandled(s url, s scheme, s handler, a{sv} details{pid, source, method, launch}) */
                    DBusMessage *sig = dbus_message_new_signal(PATH, IFACE, "URLHandled");
                    DBusMessageIter it, dict, entry, var;
                    const char *sch = scheme, *id = h->id;
                    dbus_message_iter_init_append(sig, &it);
                    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &s);
                    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &sch);
                    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &id);
                    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
                    const char *keys[] = {"source", "method", "launch"}, *vals[] = {"", "OpenURL", "spawn"};
                    for (int k = 0; k < 3; k++) {
                        dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
                        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &keys[k]);
                        dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &var);
                        dbus_message_iter_append_basic(&var, DBUS_TYPE_STRING, &vals[k]);
                        dbus_message_iter_close_container(&entry, &var);
                        dbus_message_iter_close_container(&dict, &entry);
                    }
                    const char *pk = "pid";
                    dbus_uint32_t pv = (dbus_uint32_t)pid;
                    dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
                    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &pk);
                    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "u", &var);
                    dbus_message_iter_append_basic(&var, DBUS_TYPE_UINT32, &pv);
                    dbus_message_iter_close_container(&entry, &var);
                    dbus_message_iter_close_container(&dict, &entry);
                    dbus_message_iter_close_container(&it, &dict);
                    dbus_connection_send(c, reply, NULL);
                    dbus_message_unref(reply);
                    reply = NULL;
                    dbus_connection_send(c, sig, NULL);
                    dbus_message_unref(sig);
                }
            }
        }
    } else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    if (reply) {
        dbus_connection_send(c, reply, NULL);
        dbus_message_unref(reply);
    }
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ref-service ADDRESS [BUS_NAME]\n"); return 1; }
    const char *name = argc > 2 ? argv[2] : "io.github.schemebridge.BenchC";
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    build_table();
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(argv[1], &err);
    if (!c || !dbus_bus_register(c, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    dbus_connection_add_filter(c, handle, NULL, NULL);
    if (dbus_bus_request_name(c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != 1) {
        fprintf(stderr, "cannot own %s\n", name);
        return 1;
    }
    while (dbus_connection_read_write_dispatch(c, -1)) {}
    return 0;
}

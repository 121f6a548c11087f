/*
 * schemebridge: the lean entry point of the command line, in C against libdbus (issue 27, item 8).
 *
 * The everyday call, `schemebridge open URL-or-FILE...` with no options (what xdg-open, gio open,
 * browsers and file managers run through our desktop entry), is served here as a one-shot
 * dbus-send would serve it: connect to the session bus, `OpenURL` (or `OpenURLWithOptions` with
 * the activation token the environment hands over) for each URL, and for each file (a path, or a
 * `file://` URI of this host) open it here and hand the service the descriptor with `OpenFile`
 * (in place, as the full command line does: OpenDocument), exit with xdg-open's statuses. A Swift
 * program, even one without Foundation or the argument parser, pays the Swift runtime's start at
 * every run (a 9 MB binary mapped and relocated: docs/PERFORMANCE.md); this one does not.
 *
 * Anything else (an option, a subcommand, an argument that is not valid UTF-8 or starts with `-`,
 * a `file:` URI of another host or with an escape that is not two hex digits) replaces
 * this process with the full command line, `schemebridge-cli` beside this program, with the same
 * arguments (same process id: the service sees the same caller). What a user sees is the same
 * either way: the same exit status and the same words on stderr as the full command line's
 * (Sources/SchemeBridgeCLIKit: ExitStatus, ServiceClient.explain, URLOpening.reportFailure;
 * Tests/ServiceTests/LeanEntryTests compares the two programs' output case by case).
 *
 * Built by the Makefile with the system's C compiler (`make build`, `make release`), not by
 * SwiftPM: a SwiftPM executable target, even a C one, links the Swift runtime.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The contract's names, the full command line's name, the exit statuses and each contract
 * error's status: generated from the Swift contract (SchemeBridgeCLIKit/LeanEntryHeader.swift). */
#include "contract.h"

#define CALL_TIMEOUT_MS 30000

/* Writes all of `len` bytes of `text` to stderr (retrying short writes; a closed pipe ends it). */
static void write_all(const char *text, size_t len) {
    while (len > 0) {
        ssize_t n = write(2, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        len -= (size_t)n;
    }
}

/* "schemebridge: " + the parts + "\n" on stderr, in one write where it fits. */
static void report(const char *const parts[], size_t count) {
    size_t total = strlen("schemebridge: ") + 1;
    for (size_t i = 0; i < count; i++) total += strlen(parts[i]);
    char *line = malloc(total + 1);
    if (!line) return;
    char *p = stpcpy(line, "schemebridge: ");
    for (size_t i = 0; i < count; i++) p = stpcpy(p, parts[i]);
    *p++ = '\n';
    write_all(line, (size_t)(p - line));
    free(line);
}
#define REPORT(...) report((const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* Whether the NUL-terminated `s` is valid UTF-8 as libdbus (and Swift) take it: no overlong
 * forms, no surrogates, nothing past U+10FFFF. */
static bool valid_utf8(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        if (c < 0x80) { p++; continue; }
        int n;
        unsigned int cp;
        if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; }
        else return false;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        p += n + 1;
    }
    return true;
}

/* Whether `arg` starts with `scheme:` (a letter, then letters, digits, `+ . -`: URLOpening.hasScheme). */
static bool has_scheme(const char *arg) {
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg) return false;
    unsigned char first = (unsigned char)arg[0] | 0x20;
    if (first < 'a' || first > 'z') return false;
    for (const char *p = arg; p < colon; p++) {
        unsigned char c = (unsigned char)*p, l = c | 0x20;
        if (!((l >= 'a' && l <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-')) return false;
    }
    return true;
}

/* Whether `arg` is a URL the service opens by its scheme: not a `file:` URL (URLOpening.isSchemeURL). */
static bool is_scheme_url(const char *arg) {
    return has_scheme(arg) && strncmp(arg, "file:", 5) != 0;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
    return -1;
}

/* The local file `arg` names (OpenDocument.path): a path as given (absolute or relative), or the
 * path of a `file:` URI — `file:///a%20b` or `file://localhost/a%20b` is `/a b`, escapes decoded
 * to bytes, a query or fragment left off (OpenDocument.fileURIPath). NULL when `arg` is no file
 * this program opens: a URL with another scheme, an option (`-…`), an empty argument, a `file:`
 * URI of another host, naming no path, or with a `%` not followed by two hex digits (the full
 * command line answers those). */
static char *file_path(const char *arg) {
    if (strncmp(arg, "file:", 5) != 0) return arg[0] && arg[0] != '-' && !has_scheme(arg) ? strdup(arg) : NULL;
    const char *rest = arg + 5;
    if (strncmp(rest, "//", 2) == 0) {
        rest += 2;
        size_t host = strcspn(rest, "/");
        if (host != 0 && !(host == 9 && strncmp(rest, "localhost", 9) == 0)) return NULL;
        rest += host;
    }
    size_t end = strcspn(rest, "?#");
    char *path = malloc(end + 1), *o = path;
    if (!path) return NULL;
    for (size_t i = 0; i < end; i++) {
        if (rest[i] != '%') { *o++ = rest[i]; continue; }
        int high = i + 2 < end ? hex_value(rest[i + 1]) : -1, low = high >= 0 ? hex_value(rest[i + 2]) : -1;
        if (high < 0 || low < 0) { free(path); return NULL; }
        *o++ = (char)(high << 4 | low);
        i += 2;
    }
    *o = 0;
    if (o == path) { free(path); return NULL; }
    return path;
}

/* An environment variable, or NULL when unset or empty. */
static const char *environment(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* `text` fit for a one-line message (URLText.shortened): at most 200 characters, control
 * characters as `?`, "…" after a longer one. `text` is valid UTF-8. */
static char *shortened(const char *text) {
    size_t len = strlen(text);
    char *out = malloc(len + 4);
    if (!out) return NULL;
    const unsigned char *p = (const unsigned char *)text;
    char *o = out;
    int count = 0;
    while (*p) {
        if (count == 200) { o = stpcpy(o, "\xE2\x80\xA6"); break; }
        size_t n = *p < 0x80 ? 1 : *p < 0xE0 ? 2 : *p < 0xF0 ? 3 : 4;
        if (*p < 0x20 || *p == 0x7F) *o++ = '?';
        else { memcpy(o, p, n); o += n; }
        p += n;
        count++;
    }
    *o = 0;
    return out;
}

/* The full command line beside this program (`/proc/self/exe`), as `make install` and the
 * build put both; just its name when this program's own path is unknown. */
static char *full_cli_path(void) {
    char own[PATH_MAX + 1];
    ssize_t n = readlink("/proc/self/exe", own, PATH_MAX);
    if (n <= 0) return strdup(FULL_CLI);
    own[n] = 0;
    char *slash = strrchr(own, '/');
    if (!slash) return strdup(FULL_CLI);
    slash[1] = 0;
    char *path = malloc(strlen(own) + sizeof FULL_CLI);
    if (path) stpcpy(stpcpy(path, own), FULL_CLI);
    return path;
}

/* Replaces this process with the full command line, the arguments as received. Returns only
 * when that fails, by exiting with status 4 (FullCommandLine.exec). */
static void run_full_command_line(char **argv) {
    char *target = full_cli_path();
    if (!target) exit(FAILED);
    execv(target, argv);
    const char *reason = strerror(errno);
    REPORT("cannot run ", target, ": ", reason, " (reinstall SchemeBridge: `make install` puts it beside schemebridge)");
    exit(FAILED);
}

/* `value` escaped for a D-Bus address (Connection.escapedAddressValue). */
static char *escaped_address_value(const char *value) {
    char *out = malloc(strlen(value) * 3 + 1), *o = out;
    if (!out) return NULL;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        unsigned char c = *p;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '/' || c == '.' || c == '*') {
            *o++ = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 0xF];
        }
    }
    *o = 0;
    return out;
}

/* The session bus of the environment: $DBUS_SESSION_BUS_ADDRESS, else $DBUS_STARTER_ADDRESS,
 * else the socket $XDG_RUNTIME_DIR/bus when there is one (as GDBus and sd-bus find it); NULL
 * when none (ServiceClient.busAddress, Connection.sessionBusAddress). */
static char *session_bus_address(void) {
    const char *a = environment("DBUS_SESSION_BUS_ADDRESS");
    if (!a) a = environment("DBUS_STARTER_ADDRESS");
    if (a) return strdup(a);
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (!runtime || runtime[0] != '/') return NULL;
    size_t len = strlen(runtime);
    char *path = malloc(len + 5);
    if (!path) return NULL;
    stpcpy(stpcpy(path, runtime), runtime[len - 1] == '/' ? "bus" : "/bus");
    struct stat st;
    char *address = NULL;
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        char *escaped = escaped_address_value(path);
        if (escaped && (address = malloc(strlen(escaped) + sizeof "unix:path="))) stpcpy(stpcpy(address, "unix:path="), escaped);
        free(escaped);
    }
    free(path);
    return address;
}

/* Whether the bus could not start the service (ServiceClient.isActivationFailure). */
static bool is_activation_failure(const char *name) {
    return strncmp(name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0 || strncmp(name, "org.freedesktop.systemd1.", 25) == 0
        || strcmp(name, "org.freedesktop.DBus.Error.TimedOut") == 0;
}

/* The status for a D-Bus error from the service or the bus (ExitStatus.init). */
static enum status status_of(const char *name) {
    if (strncmp(name, ERROR_PREFIX, strlen(ERROR_PREFIX)) == 0) {
        const char *rest = name + strlen(ERROR_PREFIX);
        for (size_t i = 0; i < sizeof contract_statuses / sizeof contract_statuses[0]; i++)
            if (strcmp(rest, contract_statuses[i].name) == 0) return contract_statuses[i].status;
    }
    if (strcmp(name, DBUS_ERROR_INVALID_ARGS) == 0) return USAGE;
    if (strcmp(name, DBUS_ERROR_SERVICE_UNKNOWN) == 0 || strcmp(name, DBUS_ERROR_NAME_HAS_NO_OWNER) == 0
        || strcmp(name, "org.freedesktop.DBus.Error.Disconnected") == 0 || is_activation_failure(name))
        return NO_HANDLER;
    return FAILED;
}

/* Reports that `url` could not be opened, with advice where the bus itself failed
 * (URLOpening.reportFailure, ServiceClient.explain); the status to exit with. */
static enum status report_failure(const char *url, const DBusError *error) {
    const char *name = error->name ? error->name : DBUS_ERROR_FAILED;
    const char *message = error->message ? error->message : "";
    char *shown = shortened(url);
    const char *u = shown ? shown : url;
    if (strcmp(name, DBUS_ERROR_SERVICE_UNKNOWN) == 0 || strcmp(name, DBUS_ERROR_NAME_HAS_NO_OWNER) == 0) {
        REPORT("cannot open '", u, "': the SchemeBridge service is not available on this session bus (", message, "); ",
               "install it with `make install PREFIX=~/.local` so the bus can start it, or run `schemebridged`");
    } else if (strcmp(name, DBUS_ERROR_NO_REPLY) == 0) {
        REPORT("cannot open '", u, "': the SchemeBridge service did not answer in time (", message, ")");
    } else if (is_activation_failure(name)) {
        REPORT("cannot open '", u, "': the session bus could not start the SchemeBridge service (", name, ": ", message, "); ",
               "see why with `journalctl --user -u schemebridged` in a systemd session, or run `schemebridged` by hand; ",
               "`make install` puts the service file and the unit where the bus and systemd look");
    } else {
        REPORT("cannot open '", u, "': ", message);
    }
    free(shown);
    return status_of(name);
}

/* Appends {OPTION_ACTIVATION_TOKEN: token} (when there is one) and, with `in_place`,
 * {OPTION_MODE: MODE_IN_PLACE} as the call's `a{sv}` (OpenOptions.dictionary). */
static bool append_options(DBusMessage *call, const char *token, bool in_place) {
    DBusMessageIter args, dict;
    dbus_message_iter_init_append(call, &args);
    if (!dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict)) return false;
    const char *keys[] = {OPTION_ACTIVATION_TOKEN, OPTION_MODE}, *values[] = {token, in_place ? MODE_IN_PLACE : NULL};
    for (size_t i = 0; i < 2; i++) {
        DBusMessageIter entry, variant;
        if (!values[i]) continue;
        if (!(dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry)
              && dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &keys[i])
              && dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant)
              && dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &values[i])
              && dbus_message_iter_close_container(&entry, &variant)
              && dbus_message_iter_close_container(&dict, &entry))) return false;
    }
    return dbus_message_iter_close_container(&args, &dict);
}

/* Sends `call` (unreferenced here) and waits for its reply; a failure is reported for
 * `argument` (the URL or file as given). */
static enum status perform(DBusConnection *bus, DBusMessage *call, const char *argument) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, CALL_TIMEOUT_MS, &error);
    dbus_message_unref(call);
    if (!reply) {
        enum status s = report_failure(argument, &error);
        dbus_error_free(&error);
        return s;
    }
    dbus_message_unref(reply);
    return SUCCESS;
}

/* Opens `url`: `OpenURL`, or `OpenURLWithOptions` with {activation-token: token} when there is
 * one (URLOpening.open with the options of a plain open). */
static enum status open_url(DBusConnection *bus, const char *url, const char *token) {
    DBusMessage *call = dbus_message_new_method_call(SERVICE, OBJECT_PATH, INTERFACE, token ? METHOD_OPEN_URL_WITH_OPTIONS : METHOD_OPEN_URL);
    if (!call) { REPORT("out of memory"); return FAILED; }
    if (!dbus_message_append_args(call, DBUS_TYPE_STRING, &url, DBUS_TYPE_INVALID) || (token && !append_options(call, token, false))) {
        dbus_message_unref(call);
        REPORT("out of memory");
        return FAILED;
    }
    return perform(bus, call, url);
}

/* Opens the file at `path` (named `argument` on the command line) here — for writing too where
 * the user may, so an app opening it in place can save it — and hands its descriptor to the
 * service: `OpenFile(fd, {mode: in-place})` (OpenDocument.descriptor and .open). A file that
 * cannot be opened is 2 when it does not exist, else 4; a folder is 3. */
static enum status open_file(DBusConnection *bus, const char *argument, const char *path, const char *token) {
    const int flags = O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    int fd = open(path, O_RDWR | flags);
    if (fd < 0) fd = open(path, O_RDONLY | flags);
    struct stat st;
    bool folder = fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    if (fd < 0 || folder) {
        int e = errno;
        char *shown = shortened(argument);
        const char *u = shown ? shown : argument;
        if (folder) REPORT("'", u, "' is a folder; SchemeBridge opens files and URLs (open folders with your file manager)");
        else REPORT("cannot open '", u, "': ", strerror(e));
        free(shown);
        if (folder) close(fd);
        return folder ? NO_HANDLER : e == ENOENT || e == ENOTDIR ? NOT_FOUND : FAILED;
    }
    DBusMessage *call = dbus_message_new_method_call(SERVICE, OBJECT_PATH, INTERFACE, METHOD_OPEN_FILE);
    bool built = call && dbus_message_append_args(call, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID) && append_options(call, token, true);
    close(fd);  /* the message holds a duplicate */
    if (!built) {
        if (call) dbus_message_unref(call);
        REPORT("out of memory");
        return FAILED;
    }
    return perform(bus, call, argument);
}

int main(int argc, char **argv) {
    /* A plain `open` of URLs and files, each argument valid UTF-8 (libdbus refuses, by aborting,
     * a string that is not; the full command line decodes such an argument as Swift does). */
    bool plain = argc >= 3 && strcmp(argv[1], "open") == 0;
    char **paths = plain ? calloc((size_t)argc, sizeof *paths) : NULL;
    if (plain && !paths) run_full_command_line(argv);
    for (int i = 2; plain && i < argc; i++) {
        plain = valid_utf8(argv[i]);
        if (plain && !is_scheme_url(argv[i])) plain = (paths[i] = file_path(argv[i])) != NULL;
    }
    const char *token = environment("XDG_ACTIVATION_TOKEN");
    if (!token) token = environment("DESKTOP_STARTUP_ID");
    if (!plain || (token && !valid_utf8(token))) run_full_command_line(argv);

    char *address = session_bus_address();
    if (!address) {
        REPORT("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus ",
               "(run inside a desktop session, or pass --address)");
        return NO_HANDLER;
    }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_connection_open_private(address, &error);
    if (bus) {
        dbus_connection_set_exit_on_disconnect(bus, FALSE);
        if (!dbus_bus_register(bus, &error)) {
            dbus_connection_close(bus);
            dbus_connection_unref(bus);
            bus = NULL;
        }
    }
    if (!bus) {
        REPORT("cannot connect to the session bus at ", address, ": ", error.message ? error.message : "unknown error");
        dbus_error_free(&error);
        return NO_HANDLER;
    }
    enum status first_failure = SUCCESS;
    for (int i = 2; i < argc; i++) {
        enum status s = paths[i] ? open_file(bus, argv[i], paths[i], token) : open_url(bus, argv[i], token);
        if (s != SUCCESS && first_failure == SUCCESS) first_failure = s;
    }
    dbus_connection_close(bus);
    dbus_connection_unref(bus);
    free(address);
    return first_failure;
}

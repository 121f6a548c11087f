/* portal-bench — run inside a Flatpak sandbox (no --talk-name) by Benchmarks/portal.sh: N times,
 * org.freedesktop.portal.OpenURI.OpenURI(URL) on the desktop portal, each waiting for its
 * Request's Response (which the portal sends once it has launched the app), and prints the
 * microseconds each took, one line each. Any Response but 0, or an error, ends it with exit 1.
 * usage: portal-bench N URL */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: portal-bench N URL\n"); return 2; }
    int n = atoi(argv[1]);
    const char *url = argv[2];
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (!bus) { fprintf(stderr, "%s: %s\n", error.name, error.message); return 1; }
    dbus_bus_add_match(bus, "type='signal',interface='org.freedesktop.portal.Request',member='Response'", &error);
    if (dbus_error_is_set(&error)) { fprintf(stderr, "%s: %s\n", error.name, error.message); return 1; }
    char sender[256];
    snprintf(sender, sizeof sender, "%s", dbus_bus_get_unique_name(bus) + 1);
    for (char *c = sender; *c; c++) if (*c == '.') *c = '_';
    for (int i = 0; i < n; i++) {
        char token[32], expected[512];
        snprintf(token, sizeof token, "bench%d", i);
        snprintf(expected, sizeof expected, "/org/freedesktop/portal/desktop/request/%s/%s", sender, token);
        long long start = now_us();
        DBusMessage *call = dbus_message_new_method_call("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                                                         "org.freedesktop.portal.OpenURI", "OpenURI");
        DBusMessageIter args, options, entry, variant;
        dbus_message_iter_init_append(call, &args);
        const char *parent = "", *key = "handle_token", *tok = token;
        dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &parent);
        dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &url);
        dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &options);
        dbus_message_iter_open_container(&options, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
        dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
        dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &tok);
        dbus_message_iter_close_container(&entry, &variant);
        dbus_message_iter_close_container(&options, &entry);
        dbus_message_iter_close_container(&args, &options);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, 60000, &error);
        dbus_message_unref(call);
        if (!reply) { fprintf(stderr, "%s: %s\n", error.name, error.message); return 1; }
        dbus_message_unref(reply);
        int done = 0;
        while (!done && dbus_connection_read_write(bus, 60000)) {
            DBusMessage *m;
            while (!done && (m = dbus_connection_pop_message(bus)) != NULL) {
                if (dbus_message_is_signal(m, "org.freedesktop.portal.Request", "Response") && dbus_message_get_path(m)
                    && strcmp(dbus_message_get_path(m), expected) == 0) {
                    DBusMessageIter in;
                    dbus_uint32_t code = 99;
                    if (dbus_message_iter_init(m, &in) && dbus_message_iter_get_arg_type(&in) == DBUS_TYPE_UINT32) dbus_message_iter_get_basic(&in, &code);
                    if (code != 0) { fprintf(stderr, "response %u for call %d\n", code, i); return 1; }
                    done = 1;
                }
                dbus_message_unref(m);
            }
        }
        if (!done) { fprintf(stderr, "no Response for call %d\n", i); return 1; }
        printf("%lld\n", now_us() - start);
        fflush(stdout);
    }
    return 0;
}

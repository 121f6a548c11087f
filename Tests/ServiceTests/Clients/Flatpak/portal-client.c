/* portal-client — a sandboxed app that opens a URL or one of its files through the desktop portal
 * (libdbus, no GLib): run inside a Flatpak sandbox with no --talk-name, it calls
 * org.freedesktop.portal.OpenURI.OpenURI (or .OpenFile with a descriptor) and stays on the bus
 * until the portal's Response, as an app does: the portal closes a request whose app left.
 * `pick TITLE` (`save TITLE`) calls org.freedesktop.portal.FileChooser.OpenFile (SaveFile) instead
 * and prints the uris the Response carries, one "uri U" line each. $PORTAL_PARENT, when set, is the parent_window passed.
 * $PORTAL_CLOSE_WHEN, when set, is a path: once a file is there (the test makes it when the dialog is
 * up), the app closes its request (org.freedesktop.portal.Request.Close), prints "closed" and ends.
 * Built by make-test-flatpaks.sh into the runtime as /usr/bin/portal-client.
 *
 * usage: portal-client uri URL | portal-client file PATH | portal-client pick|save TITLE
 * Prints "response N" (0 success, 1 cancelled, 2 other), "closed", or "error NAME: MESSAGE" (exit 1). */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) { printf("error usage: portal-client uri URL | file PATH | pick|save TITLE\n"); return 1; }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (!bus) { printf("error %s: %s\n", error.name, error.message); return 1; }
    dbus_bus_add_match(bus, "type='signal',interface='org.freedesktop.portal.Request',member='Response'", &error);
    if (dbus_error_is_set(&error)) { printf("error %s: %s\n", error.name, error.message); return 1; }

    /* The request's path, known before the call (handle_token): a Response cannot be missed. */
    const char *token = "sbtest";
    char expected[512], sender[256];
    snprintf(sender, sizeof sender, "%s", dbus_bus_get_unique_name(bus) + 1);
    for (char *c = sender; *c; c++) if (*c == '.') *c = '_';
    snprintf(expected, sizeof expected, "/org/freedesktop/portal/desktop/request/%s/%s", sender, token);

    int file = strcmp(argv[1], "file") == 0, save = strcmp(argv[1], "save") == 0, pick = save || strcmp(argv[1], "pick") == 0;
    DBusMessage *call = dbus_message_new_method_call("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                                                     pick ? "org.freedesktop.portal.FileChooser" : "org.freedesktop.portal.OpenURI",
                                                     save ? "SaveFile" : pick ? "OpenFile" : file ? "OpenFile" : "OpenURI");
    DBusMessageIter args, options, entry, variant;
    dbus_message_iter_init_append(call, &args);
    const char *parent = getenv("PORTAL_PARENT") ? getenv("PORTAL_PARENT") : "";
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &parent);
    if (pick) {
        const char *title = argv[2];
        dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &title);
    } else if (file) {
        int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fd < 0) { printf("error open: %s\n", argv[2]); return 1; }
        dbus_message_iter_append_basic(&args, DBUS_TYPE_UNIX_FD, &fd);
    } else {
        const char *uri = argv[2];
        dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &uri);
    }
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &options);
    const char *key = "handle_token";
    dbus_message_iter_open_container(&options, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &token);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&options, &entry);
    dbus_message_iter_close_container(&args, &options);

    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, 300000, &error);
    if (!reply) { printf("error %s: %s\n", error.name, error.message); return 1; }
    const char *handle = NULL;
    if (!dbus_message_get_args(reply, &error, DBUS_TYPE_OBJECT_PATH, &handle, DBUS_TYPE_INVALID)) {
        printf("error %s: %s\n", error.name, error.message);
        return 1;
    }
    if (strcmp(handle, expected) != 0) { printf("error handle: %s, not %s\n", handle, expected); return 1; }
    fflush(stdout);

    time_t deadline = time(NULL) + 300;
    const char *close_when = getenv("PORTAL_CLOSE_WHEN");
    while (time(NULL) < deadline && dbus_connection_read_write(bus, close_when ? 50 : 1000)) {
        if (close_when && access(close_when, F_OK) == 0) {
            DBusMessage *close_call = dbus_message_new_method_call("org.freedesktop.portal.Desktop", expected, "org.freedesktop.portal.Request", "Close");
            DBusMessage *closed = dbus_connection_send_with_reply_and_block(bus, close_call, 300000, &error);
            if (!closed) { printf("error %s: %s\n", error.name, error.message); return 1; }
            printf("closed\n");
            return 0;
        }
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(bus)) != NULL) {
            if (dbus_message_is_signal(m, "org.freedesktop.portal.Request", "Response") && dbus_message_get_path(m)
                && strcmp(dbus_message_get_path(m), expected) == 0) {
                DBusMessageIter in;
                dbus_uint32_t code = 99;
                if (dbus_message_iter_init(m, &in) && dbus_message_iter_get_arg_type(&in) == DBUS_TYPE_UINT32) dbus_message_iter_get_basic(&in, &code);
                printf("response %u\n", code);
                /* The results' uris (a{sv}: "uris" as), one line each. */
                DBusMessageIter dict, item, value, list;
                if (dbus_message_iter_next(&in) && dbus_message_iter_get_arg_type(&in) == DBUS_TYPE_ARRAY) {
                    for (dbus_message_iter_recurse(&in, &dict); dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&dict)) {
                        const char *key = NULL;
                        dbus_message_iter_recurse(&dict, &item);
                        dbus_message_iter_get_basic(&item, &key);
                        if (strcmp(key, "uris") != 0 || !dbus_message_iter_next(&item)) continue;
                        dbus_message_iter_recurse(&item, &value);
                        if (dbus_message_iter_get_arg_type(&value) != DBUS_TYPE_ARRAY) continue;
                        for (dbus_message_iter_recurse(&value, &list); dbus_message_iter_get_arg_type(&list) == DBUS_TYPE_STRING; dbus_message_iter_next(&list)) {
                            const char *uri = NULL;
                            dbus_message_iter_get_basic(&list, &uri);
                            printf("uri %s\n", uri);
                        }
                    }
                }
                return 0;
            }
            dbus_message_unref(m);
        }
    }
    printf("error timeout: no Response for %s\n", expected);
    return 1;
}

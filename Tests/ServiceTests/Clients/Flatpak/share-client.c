/* share-client — a sharing app small enough for the test runtime (libdbus, no Python): run inside
 * a Flatpak sandbox, it calls io.github.schemebridge.Share1.Share and prints the request's one
 * Response. Built by make-test-flatpaks.sh into the runtime as /usr/bin/share-client.
 *
 * usage: share-client [--target ID] [--file PATH]... [--text TEXT]...
 *   --file PATH   an item {file: h} (PATH opened read-only: the proof of access)
 *   --text TEXT   an item {type: 'text/plain', data: ay}
 * Prints "request PATH", then "code N" and one "KEY=VALUE" line per string result; or
 * "error NAME: MESSAGE" (exit 1). Waits up to 300 s for the Response (exit 2 without one). */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NAME "io.github.schemebridge.SchemeBridge1"
#define PATH "/io/github/schemebridge/SchemeBridge1"

static void add_entry(DBusMessageIter *dict, const char *key, int type, const char *signature, const void *value, int length) {
    DBusMessageIter entry, variant, array;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    if (type == DBUS_TYPE_ARRAY) {
        dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "y", &array);
        dbus_message_iter_append_fixed_array(&array, DBUS_TYPE_BYTE, &value, length);
        dbus_message_iter_close_container(&variant, &array);
    } else {
        dbus_message_iter_append_basic(&variant, type, value);
    }
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dict, &entry);
}

int main(int argc, char **argv) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (!bus) { printf("error %s: %s\n", error.name, error.message); return 1; }
    /* Before the call, so the Response cannot come before the match. */
    dbus_bus_add_match(bus, "type='signal',interface='io.github.schemebridge.Request1',member='Response'", &error);
    if (dbus_error_is_set(&error)) { printf("error %s: %s\n", error.name, error.message); return 1; }

    DBusMessage *call = dbus_message_new_method_call(NAME, PATH, "io.github.schemebridge.Share1", "Share");
    DBusMessageIter args, items, item, options;
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "a{sv}", &items);
    const char *target = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--target") == 0) { target = argv[i + 1]; continue; }
        dbus_message_iter_open_container(&items, DBUS_TYPE_ARRAY, "{sv}", &item);
        if (strcmp(argv[i], "--file") == 0) {
            int fd = open(argv[i + 1], O_RDONLY | O_CLOEXEC);
            if (fd < 0) { printf("error open: %s\n", argv[i + 1]); return 1; }
            add_entry(&item, "file", DBUS_TYPE_UNIX_FD, "h", &fd, 0);
        } else if (strcmp(argv[i], "--text") == 0) {
            const char *type = "text/plain";
            add_entry(&item, "type", DBUS_TYPE_STRING, "s", &type, 0);
            add_entry(&item, "data", DBUS_TYPE_ARRAY, "ay", argv[i + 1], (int)strlen(argv[i + 1]));
        } else {
            printf("error usage: unknown option %s\n", argv[i]);
            return 1;
        }
        dbus_message_iter_close_container(&items, &item);
    }
    dbus_message_iter_close_container(&args, &items);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &options);
    if (target) add_entry(&options, "target", DBUS_TYPE_STRING, "s", &target, 0);
    dbus_message_iter_close_container(&args, &options);

    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, 300000, &error);
    if (!reply) { printf("error %s: %s\n", error.name, error.message); return 1; }
    const char *request = NULL;
    dbus_message_get_args(reply, &error, DBUS_TYPE_OBJECT_PATH, &request, DBUS_TYPE_INVALID);
    if (!request) { printf("error %s: %s\n", error.name, error.message); return 1; }
    printf("request %s\n", request);
    fflush(stdout);

    for (int waited = 0; waited < 300000 && dbus_connection_read_write(bus, 1000); waited += 1000) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(bus))) {
            if (dbus_message_is_signal(message, "io.github.schemebridge.Request1", "Response") &&
                strcmp(dbus_message_get_path(message), request) == 0) {
                DBusMessageIter in, results, entry, variant;
                dbus_uint32_t code;
                dbus_message_iter_init(message, &in);
                dbus_message_iter_get_basic(&in, &code);
                printf("code %u\n", code);
                dbus_message_iter_next(&in);
                dbus_message_iter_recurse(&in, &results);
                for (; dbus_message_iter_get_arg_type(&results) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&results)) {
                    const char *key, *value;
                    dbus_message_iter_recurse(&results, &entry);
                    dbus_message_iter_get_basic(&entry, &key);
                    dbus_message_iter_next(&entry);
                    dbus_message_iter_recurse(&entry, &variant);
                    if (dbus_message_iter_get_arg_type(&variant) != DBUS_TYPE_STRING) continue;
                    dbus_message_iter_get_basic(&variant, &value);
                    printf("%s=%s\n", key, value);
                }
                return 0;
            }
            dbus_message_unref(message);
        }
    }
    printf("error no Response\n");
    return 2;
}

/* openfile-client — a sandboxed app that opens one of its own files with a handler (libdbus, no
 * Python): run inside a Flatpak sandbox, it calls io.github.schemebridge.SchemeBridge1.OpenFile
 * and prints the reply. Built by make-test-flatpaks.sh into the runtime as /usr/bin/openfile-client.
 *
 * usage: openfile-client PATH MODE [SWAP-TARGET]
 *   PATH         opened read-write (the proof of access, and what in place may write)
 *   MODE         OpenFile's `mode` option (`in-place`, `copy`)
 *   SWAP-TARGET  after the reply, the attack of issue 37 item 2: PATH is renamed to PATH.orig and
 *                a symlink to SWAP-TARGET (a file the app never had) put in its place
 * Prints one "KEY=VALUE" line per string result, then "swapped" after a swap; or
 * "error NAME: MESSAGE" (exit 1). */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) { printf("error usage: openfile-client PATH MODE [SWAP-TARGET]\n"); return 1; }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (!bus) { printf("error %s: %s\n", error.name, error.message); return 1; }
    int fd = open(argv[1], O_RDWR | O_CLOEXEC);
    if (fd < 0) { printf("error open: %s\n", argv[1]); return 1; }

    DBusMessage *call = dbus_message_new_method_call("io.github.schemebridge.SchemeBridge1", "/io/github/schemebridge/SchemeBridge1",
                                                     "io.github.schemebridge.SchemeBridge1", "OpenFile");
    DBusMessageIter args, options, entry, variant;
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_UNIX_FD, &fd);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &options);
    const char *key = "mode", *mode = argv[2];
    dbus_message_iter_open_container(&options, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &mode);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&options, &entry);
    dbus_message_iter_close_container(&args, &options);

    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, 300000, &error);
    if (!reply) { printf("error %s: %s\n", error.name, error.message); return 1; }
    DBusMessageIter in, results, item, value;
    dbus_message_iter_init(reply, &in);
    dbus_message_iter_recurse(&in, &results);
    for (; dbus_message_iter_get_arg_type(&results) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&results)) {
        const char *name, *text;
        dbus_message_iter_recurse(&results, &item);
        dbus_message_iter_get_basic(&item, &name);
        dbus_message_iter_next(&item);
        dbus_message_iter_recurse(&item, &value);
        if (dbus_message_iter_get_arg_type(&value) != DBUS_TYPE_STRING) continue;
        dbus_message_iter_get_basic(&value, &text);
        printf("%s=%s\n", name, text);
    }
    fflush(stdout);
    if (argc > 3) {
        char moved[4096];
        snprintf(moved, sizeof moved, "%s.orig", argv[1]);
        if (rename(argv[1], moved) != 0 || symlink(argv[3], argv[1]) != 0) { printf("error swap: %s\n", argv[1]); return 1; }
        printf("swapped\n");
    }
    return 0;
}

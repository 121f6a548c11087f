/* portal-floor-backend — the least an AppChooser backend can do, for Benchmarks/portal.sh's "floor"
 * way: it owns NAME on the session bus and answers every
 * org.freedesktop.impl.portal.AppChooser.ChooseApplication at once with CHOICE (libdbus, one
 * thread, no object of its own: anything else gets UnknownMethod, as the portal's Request proxy's
 * GetAll does from any backend that exports its Request object only while a call runs). What an
 * OpenURI costs through it beyond the portal's own path (no backend asked) is the portal's asking
 * itself, which no backend can make cheaper. Prints "ready" once NAME is owned.
 * usage: portal-floor-backend NAME CHOICE */
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: portal-floor-backend NAME CHOICE\n"); return 2; }
    const char *choice = argv[2];
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (!bus) { fprintf(stderr, "%s: %s\n", error.name, error.message); return 1; }
    if (dbus_bus_request_name(bus, argv[1], DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "cannot own %s: %s\n", argv[1], dbus_error_is_set(&error) ? error.message : "taken");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    while (dbus_connection_read_write(bus, -1)) {
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(bus)) != NULL) {
            if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_CALL && !dbus_message_get_no_reply(m)) {
                DBusMessage *reply;
                if (dbus_message_is_method_call(m, "org.freedesktop.impl.portal.AppChooser", "ChooseApplication")) {
                    reply = dbus_message_new_method_return(m);
                    DBusMessageIter args, results, entry, variant;
                    dbus_uint32_t response = 0;
                    const char *key = "choice";
                    dbus_message_iter_init_append(reply, &args);
                    dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT32, &response);
                    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &results);
                    dbus_message_iter_open_container(&results, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
                    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
                    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
                    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &choice);
                    dbus_message_iter_close_container(&entry, &variant);
                    dbus_message_iter_close_container(&results, &entry);
                    dbus_message_iter_close_container(&args, &results);
                } else {
                    reply = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "portal-floor-backend answers ChooseApplication only");
                }
                dbus_connection_send(bus, reply, NULL);
                dbus_message_unref(reply);
                dbus_connection_flush(bus);
            }
            dbus_message_unref(m);
        }
    }
    return 0;
}

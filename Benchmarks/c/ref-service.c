/* A minimal C libdbus service: the baseline the Swift layer is measured against.
 * Owns io.github.schemebridge.BenchC and answers io.github.schemebridge.Bench.Echo(s) -> s
 * at /bench, with libdbus's own blocking main loop. Usage: ref-service ADDRESS */
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

static DBusHandlerResult handle(DBusConnection *c, DBusMessage *m, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(m, "io.github.schemebridge.Bench", "Echo"))
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *s = NULL;
    DBusMessage *reply;
    if (!dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID))
        reply = dbus_message_new_error(m, DBUS_ERROR_INVALID_ARGS, "Echo takes a string");
    else {
        reply = dbus_message_new_method_return(m);
        dbus_message_append_args(reply, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
    }
    dbus_connection_send(c, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ref-service ADDRESS\n"); return 1; }
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(argv[1], &err);
    if (!c || !dbus_bus_register(c, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    dbus_connection_add_filter(c, handle, NULL, NULL);
    if (dbus_bus_request_name(c, "io.github.schemebridge.BenchC", DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != 1) {
        fprintf(stderr, "cannot own io.github.schemebridge.BenchC\n");
        return 1;
    }
    while (dbus_connection_read_write_dispatch(c, -1)) {}
    return 0;
}

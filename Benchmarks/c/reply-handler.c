/* The handlers of make bench's reply round trips (issue 13), in C with libdbus so that what is
 * measured is the service, not a handler's runtime.
 *
 *   reply-handler serve ADDR NAME
 *       a running D-Bus-activatable app: owns NAME on the bus at ADDR and answers
 *       org.freedesktop.Application.Open(as uris, a{sv} platform_data) at once (any object path);
 *       when platform_data has "reply-token" (OpenURLWithReply), it then calls
 *       Reply(token, 0, {"opened": <uri>}) on schemebridged, without blocking its loop.
 *   reply-handler URL
 *       a spawned handler (Exec=reply-handler %u): with $SCHEMEBRIDGE_REPLY_TOKEN set it connects
 *       to $DBUS_SESSION_BUS_ADDRESS and calls Reply(token, 0, {"opened": URL}); without it, it
 *       exits at once (a plain OpenURL).
 *
 * Exit status 1 (and a line on stderr) when a Reply is refused: the client then sees no Response
 * and fails too.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_NAME "io.github.schemebridge.SchemeBridge1"
#define SB_PATH "/io/github/schemebridge/SchemeBridge1"
#define SB_IFACE "io.github.schemebridge.SchemeBridge1"

/* Reply(token, 0, {"opened": <uri>}) */
static DBusMessage *reply_call(const char *token, const char *uri) {
    DBusMessage *m = dbus_message_new_method_call(SB_NAME, SB_PATH, SB_IFACE, "Reply");
    DBusMessageIter it, dict, entry, variant;
    dbus_uint32_t code = 0;
    const char *key = "opened";
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &token);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &code);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
    dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &uri);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&dict, &entry);
    dbus_message_iter_close_container(&it, &dict);
    return m;
}

static void reply_returned(DBusPendingCall *p, void *data) {
    (void)data;
    DBusMessage *r = dbus_pending_call_steal_reply(p);
    if (r && dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) {
        DBusError err;
        dbus_error_init(&err);
        dbus_set_error_from_message(&err, r);
        fprintf(stderr, "reply-handler: Reply refused: %s: %s\n", err.name, err.message);
        exit(1);
    }
    if (r) dbus_message_unref(r);
}

/* Open(as uris, a{sv} platform_data): the first URI and platform_data["reply-token"]. */
static void parse_open(DBusMessage *m, const char **uri, const char **token) {
    DBusMessageIter it, arr, entry, variant;
    *uri = "", *token = NULL;
    if (!dbus_message_iter_init(m, &it) || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) return;
    dbus_message_iter_recurse(&it, &arr);
    if (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRING) dbus_message_iter_get_basic(&arr, uri);
    if (!dbus_message_iter_next(&it) || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) return;
    for (dbus_message_iter_recurse(&it, &arr); dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY;
         dbus_message_iter_next(&arr)) {
        const char *key;
        dbus_message_iter_recurse(&arr, &entry);
        dbus_message_iter_get_basic(&entry, &key);
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &variant);
        if (strcmp(key, "reply-token") == 0 && dbus_message_iter_get_arg_type(&variant) == DBUS_TYPE_STRING)
            dbus_message_iter_get_basic(&variant, token);
    }
}

static DBusHandlerResult on_message(DBusConnection *c, DBusMessage *m, void *data) {
    (void)data;
    if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    DBusMessage *r;
    if (dbus_message_is_method_call(m, "org.freedesktop.Application", "Open")) {
        const char *uri, *token;
        parse_open(m, &uri, &token);
        r = dbus_message_new_method_return(m);
        dbus_connection_send(c, r, NULL);
        dbus_message_unref(r);
        if (token) { /* after Open returned, as an app answers once it has done the work */
            DBusMessage *call = reply_call(token, uri);
            DBusPendingCall *p = NULL;
            if (!dbus_connection_send_with_reply(c, call, &p, 10000) || !p) { fprintf(stderr, "reply-handler: cannot send\n"); exit(1); }
            dbus_pending_call_set_notify(p, reply_returned, NULL, NULL);
            dbus_pending_call_unref(p);
            dbus_message_unref(call);
        }
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    r = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "reply-handler answers org.freedesktop.Application.Open only");
    dbus_connection_send(c, r, NULL);
    dbus_message_unref(r);
    return DBUS_HANDLER_RESULT_HANDLED;
}

static DBusConnection *connect_bus(const char *address) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(address, &err);
    if (!c || !dbus_bus_register(c, &err)) { fprintf(stderr, "reply-handler: %s\n", err.message); exit(1); }
    return c;
}

static int serve(const char *address, const char *name) {
    DBusConnection *c = connect_bus(address);
    DBusError err;
    dbus_error_init(&err);
    if (dbus_bus_request_name(c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "reply-handler: cannot own %s: %s\n", name, err.message ? err.message : "taken");
        return 1;
    }
    dbus_connection_add_filter(c, on_message, NULL, NULL);
    while (dbus_connection_read_write_dispatch(c, -1)) {}
    return 0;
}

static int spawned(const char *uri) {
    const char *token = getenv("SCHEMEBRIDGE_REPLY_TOKEN"), *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!token || !*token) return 0;
    if (!address) { fprintf(stderr, "reply-handler: no DBUS_SESSION_BUS_ADDRESS\n"); return 1; }
    DBusConnection *c = connect_bus(address);
    DBusMessage *m = reply_call(token, uri);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 10000, &err);
    if (!r) { fprintf(stderr, "reply-handler: Reply refused: %s: %s\n", err.name, err.message); return 1; }
    dbus_message_unref(r);
    dbus_message_unref(m);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
    if (argc == 2) return spawned(argv[1]);
    fputs("usage: reply-handler serve ADDR NAME | reply-handler URL\n", stderr);
    return 2;
}

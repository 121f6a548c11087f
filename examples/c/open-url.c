/* open-url: SchemeBridge from C through a proxy that gdbus-codegen generated from the shipped
 * introspection XML (dbus/io.github.schemebridge.SchemeBridge1.xml; see the Makefile beside).
 *
 *   open-url URL [FILE]
 *
 * Asks whether URL can be opened, opens it (returns once its handler has started), and with
 * FILE asks the content type of that file by passing its descriptor: the XML's
 * org.gtk.GDBus.C.UnixFD annotation gives ContentTypeForFile a GUnixFDList parameter.
 * Exit status as schemebridge open: 0 opened, 1 malformed URL, 3 no handler or no service,
 * 4 any other failure. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include "schemebridge-generated.h"

#define SB_ERROR "io.github.schemebridge.SchemeBridge1.Error."

/* The exit status for a D-Bus error (the remote error's name, as schemebridge maps it). */
static int status_for(const GError *error) {
    g_autofree gchar *name = g_dbus_error_get_remote_error(error);
    if (name == NULL) return 4;
    if (strcmp(name, SB_ERROR "InvalidURL") == 0) return 1;
    if (strcmp(name, SB_ERROR "NoHandler") == 0 || strcmp(name, SB_ERROR "ReservedScheme") == 0
        || strcmp(name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0) return 3;
    return 4;
}

static int fail(const char *what, GError *error) {
    int status = status_for(error);
    g_autofree gchar *name = g_dbus_error_get_remote_error(error);
    g_dbus_error_strip_remote_error(error);
    fprintf(stderr, "open-url: %s: %s (%s)\n", what, error->message, name ? name : "no D-Bus error name");
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s URL [FILE]\n", argv[0]);
        return 1;
    }
    const char *url = argv[1];
    g_autoptr(GError) error = NULL;
    /* The session bus of the environment ($DBUS_SESSION_BUS_ADDRESS); the bus starts the service. */
    SBSchemeBridge1 *proxy = sb_scheme_bridge1_proxy_new_for_bus_sync(
        G_BUS_TYPE_SESSION, G_DBUS_PROXY_FLAGS_NONE, "io.github.schemebridge.SchemeBridge1",
        "/io/github/schemebridge/SchemeBridge1", NULL, &error);
    if (proxy == NULL) return fail("cannot reach the session bus", error);

    gboolean can_open = FALSE;
    if (!sb_scheme_bridge1_call_can_open_url_sync(proxy, url, &can_open, NULL, &error))
        return fail("CanOpenURL", error);
    printf("can open %s: %s\n", url, can_open ? "yes" : "no");

    gboolean opened = FALSE;
    if (!sb_scheme_bridge1_call_open_url_sync(proxy, url, &opened, NULL, &error))
        return fail("OpenURL", error);
    printf("opened %s\n", url);

    if (argc == 3) {
        int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            perror(argv[2]);
            return 2;
        }
        /* The list takes the descriptor; the call's "h" argument is its index in the list. */
        g_autoptr(GUnixFDList) fds = g_unix_fd_list_new_from_array(&fd, 1);
        g_autofree gchar *type = NULL;
        g_autofree gchar *name = g_path_get_basename(argv[2]);
        if (!sb_scheme_bridge1_call_content_type_for_file_sync(proxy, g_variant_new_handle(0), name, fds, &type, NULL, NULL, &error))
            return fail("ContentTypeForFile", error);
        printf("type of %s: %s\n", name, type);
    }
    g_object_unref(proxy);
    return 0;
}

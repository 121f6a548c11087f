/* wl-activation — a native Wayland client (libwayland-client, xdg-shell, xdg-activation-v1) for
 * the focus tests under a real compositor (sway). Built by the test with wayland-scanner and gcc.
 *
 *   wl-activation window APP_ID FIFO
 *       Maps a toplevel (app id APP_ID), prints "mapped", then reads lines from FIFO: each is an
 *       activation token the app was given. A token: xdg_activation_v1.activate(token, surface),
 *       a round trip (the compositor has handled it), "activate-sent TOKEN". An empty line (no
 *       token was given): nothing to activate with, "no-token". Prints "activated 1|0" whenever
 *       the compositor's configure says the window is (not) the active one.
 *   wl-activation token APP_ID
 *       Maps a toplevel (app id APP_ID), waits until the compositor makes it the active window,
 *       then asks for a token for it (get_activation_token; set_surface; set_serial of its last
 *       keyboard enter when the seat has a keyboard; commit), prints "token TOKEN" and stays
 *       mapped until it is killed.
 *   wl-activation export APP_ID
 *       As `token`, then exports the toplevel with xdg-foreign (zxdg_exporter_v2) and prints
 *       "handle HANDLE": a caller's window that a dialog may be made transient for
 *       (`parent-window` wayland:HANDLE).
 * Exits 1 with a message on stderr when the compositor lacks a global it needs. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-foreign-unstable-v2-client-protocol.h"

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm;
static struct xdg_activation_v1 *activation;
static struct zxdg_exporter_v2 *exporter;
static char *handle;
static struct wl_seat *seat;
static struct wl_surface *surface;
static struct wl_buffer *buffer;
static int configured, active = -1;
static uint32_t key_serial;
static int have_key_serial;
static char *token;

static void noop() {}

static void ping(void *data, struct xdg_wm_base *base, uint32_t serial) { xdg_wm_base_pong(base, serial); }
static const struct xdg_wm_base_listener wm_listener = { ping };

static void keyboard_keymap(void *data, struct wl_keyboard *k, uint32_t format, int fd, uint32_t size) { close(fd); }
static void keyboard_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) {
    key_serial = serial;
    have_key_serial = 1;
}
static const struct wl_keyboard_listener keyboard_listener = {
    keyboard_keymap, keyboard_enter, (void *)noop, (void *)noop, (void *)noop, (void *)noop,
};

static void seat_capabilities(void *data, struct wl_seat *s, uint32_t caps) {
    if (caps & WL_SEAT_CAPABILITY_KEYBOARD) wl_keyboard_add_listener(wl_seat_get_keyboard(s), &keyboard_listener, NULL);
}
static const struct wl_seat_listener seat_listener = { seat_capabilities, (void *)noop };

static void global(void *data, struct wl_registry *r, uint32_t name, const char *interface, uint32_t version) {
    if (strcmp(interface, wl_compositor_interface.name) == 0) compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0) shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        wm = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wm, &wm_listener, NULL);
    } else if (strcmp(interface, xdg_activation_v1_interface.name) == 0) activation = wl_registry_bind(r, name, &xdg_activation_v1_interface, 1);
    else if (strcmp(interface, zxdg_exporter_v2_interface.name) == 0) exporter = wl_registry_bind(r, name, &zxdg_exporter_v2_interface, 1);
    else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat) {
        seat = wl_registry_bind(r, name, &wl_seat_interface, 1);
        wl_seat_add_listener(seat, &seat_listener, NULL);
    }
}
static const struct wl_registry_listener registry_listener = { global, (void *)noop };

static void surface_configure(void *data, struct xdg_surface *xs, uint32_t serial) {
    xdg_surface_ack_configure(xs, serial);
    if (!configured) {
        wl_surface_attach(surface, buffer, 0, 0);
        wl_surface_damage(surface, 0, 0, INT32_MAX, INT32_MAX);
    }
    wl_surface_commit(surface);
    configured = 1;
}
static const struct xdg_surface_listener surface_listener = { surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {
    int now = 0;
    uint32_t *state;
    wl_array_for_each(state, states) if (*state == XDG_TOPLEVEL_STATE_ACTIVATED) now = 1;
    if (now != active) {
        active = now;
        printf("activated %d\n", now);
        fflush(stdout);
    }
}
static const struct xdg_toplevel_listener toplevel_listener = { toplevel_configure, (void *)noop };

static void token_done(void *data, struct xdg_activation_token_v1 *t, const char *name) { token = strdup(name); }
static const struct xdg_activation_token_v1_listener token_listener = { token_done };

static void exported_handle(void *data, struct zxdg_exported_v2 *e, const char *name) { handle = strdup(name); }
static const struct zxdg_exported_v2_listener exported_listener = { exported_handle };

static struct wl_buffer *solid(int width, int height, uint32_t colour) {
    int size = width * height * 4;
    int fd = memfd_create("wl-activation", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) != 0) { perror("memfd"); exit(1); }
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    for (int i = 0; i < width * height; i++) pixels[i] = colour;
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return b;
}

/* Waits for events on the display and on `fd` (-1: none); returns the fd's poll events. */
static short wait_events(int fd) {
    struct pollfd fds[2] = { { wl_display_get_fd(display), POLLIN, 0 }, { fd, POLLIN, 0 } };
    while (wl_display_prepare_read(display) != 0) wl_display_dispatch_pending(display);
    wl_display_flush(display);
    if (poll(fds, fd >= 0 ? 2 : 1, -1) < 0) { wl_display_cancel_read(display); return 0; }
    if (fds[0].revents & POLLIN) wl_display_read_events(display); else wl_display_cancel_read(display);
    if (fds[0].revents & (POLLERR | POLLHUP)) { fprintf(stderr, "the compositor went away\n"); exit(1); }
    if (wl_display_dispatch_pending(display) < 0) { fprintf(stderr, "protocol error\n"); exit(1); }
    return fd >= 0 ? fds[1].revents : 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "window") == 0 && argc < 4)) { fprintf(stderr, "usage: wl-activation window APP_ID FIFO | token APP_ID | export APP_ID\n"); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "cannot connect to the Wayland display\n"); return 1; }
    wl_registry_add_listener(wl_display_get_registry(display), &registry_listener, NULL);
    wl_display_roundtrip(display);
    wl_display_roundtrip(display);  /* the seat's capabilities */
    if (!compositor || !shm || !wm) { fprintf(stderr, "the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n"); return 1; }
    if (!activation) { fprintf(stderr, "the compositor has no xdg_activation_v1\n"); return 1; }

    int is_window = strcmp(argv[1], "window") == 0;
    buffer = solid(200, 120, is_window ? 0x2050c0 : 0xc03020);
    surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(wm, surface);
    xdg_surface_add_listener(xs, &surface_listener, NULL);
    struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
    xdg_toplevel_add_listener(top, &toplevel_listener, NULL);
    xdg_toplevel_set_app_id(top, argv[2]);
    xdg_toplevel_set_title(top, argv[2]);
    wl_surface_commit(surface);
    while (!configured) wait_events(-1);
    wl_display_roundtrip(display);
    printf("mapped\n");

    if (is_window) {
        int fifo = open(argv[3], O_RDWR | O_NONBLOCK | O_CLOEXEC);  /* RDWR: never at end of file */
        if (fifo < 0) { perror(argv[3]); return 1; }
        char line[4096];
        size_t used = 0;
        for (;;) {
            if (!(wait_events(fifo) & POLLIN)) continue;
            ssize_t n = read(fifo, line + used, sizeof line - 1 - used);
            if (n <= 0) continue;
            used += (size_t)n;
            char *end;
            while ((end = memchr(line, '\n', used))) {
                *end = 0;
                if (line[0] == 0) {
                    printf("no-token\n");
                } else {
                    xdg_activation_v1_activate(activation, line, surface);
                    wl_display_roundtrip(display);
                    printf("activate-sent %s\n", line);
                }
                used -= (size_t)(end + 1 - line);
                memmove(line, end + 1, used);
            }
            if (used == sizeof line - 1) used = 0;  /* a line too long is dropped */
        }
    }

    while (active != 1) wait_events(-1);
    struct xdg_activation_token_v1 *t = xdg_activation_v1_get_activation_token(activation);
    xdg_activation_token_v1_add_listener(t, &token_listener, NULL);
    xdg_activation_token_v1_set_surface(t, surface);
    if (have_key_serial && seat) xdg_activation_token_v1_set_serial(t, key_serial, seat);
    xdg_activation_token_v1_commit(t);
    while (!token) wait_events(-1);
    printf("token %s\n", token);
    if (strcmp(argv[1], "export") == 0) {
        if (!exporter) { fprintf(stderr, "the compositor has no zxdg_exporter_v2 (xdg-foreign)\n"); return 1; }
        struct zxdg_exported_v2 *e = zxdg_exporter_v2_export_toplevel(exporter, surface);
        zxdg_exported_v2_add_listener(e, &exported_listener, NULL);
        while (!handle) wait_events(-1);
        printf("handle %s\n", handle);
    }
    for (;;) wait_events(-1);
}

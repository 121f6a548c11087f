/* Measures round-trip latency, interleaved in one run: the bus daemon's own Peer.Ping (the
 * floor), Echo on the C reference service, and Echo on the Swift layer (inline and async
 * handlers). Usage: layer-client ADDRESS ROUNDS. Prints one JSON object. */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PING, C_ECHO, SWIFT_INLINE, SWIFT_ASYNC, KINDS };
static const char *names[KINDS] = {"bus_ping", "c_service_echo", "swift_inline_echo", "swift_async_echo"};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static DBusMessage *make(int kind) {
    DBusMessage *m;
    const char *text = "todolist://add?task=milk";
    switch (kind) {
    case PING: return dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping");
    case C_ECHO: m = dbus_message_new_method_call("io.github.schemebridge.BenchC", "/bench", "io.github.schemebridge.Bench", "Echo"); break;
    case SWIFT_INLINE: m = dbus_message_new_method_call("io.github.schemebridge.BenchSwift", "/bench", "io.github.schemebridge.Bench", "Echo"); break;
    default: m = dbus_message_new_method_call("io.github.schemebridge.BenchSwift", "/bench", "io.github.schemebridge.Bench", "EchoAsync"); break;
    }
    dbus_message_append_args(m, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    return m;
}

static double once(DBusConnection *c, int kind) {
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *m = make(kind);
    double t0 = now_us();
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 5000, &err);
    double t1 = now_us();
    dbus_message_unref(m);
    if (!r) { fprintf(stderr, "%s: %s\n", names[kind], err.message); exit(1); }
    dbus_message_unref(r);
    return t1 - t0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: layer-client ADDRESS ROUNDS\n"); return 1; }
    int rounds = atoi(argv[2]);
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(argv[1], &err);
    if (!c || !dbus_bus_register(c, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    for (int i = 0; i < rounds / 10 + 10; i++)
        for (int k = 0; k < KINDS; k++) once(c, k);  /* warm-up */
    double *samples[KINDS];
    for (int k = 0; k < KINDS; k++) samples[k] = calloc(rounds, sizeof(double));
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < KINDS; j++) {
            int k = (i + j) % KINDS; /* rotate the order every round */
            samples[k][i] = once(c, k);
        }
    printf("{\"rounds\": %d", rounds);
    for (int k = 0; k < KINDS; k++) {
        qsort(samples[k], rounds, sizeof(double), cmp);
        printf(", \"%s\": {\"p50_us\": %.1f, \"p99_us\": %.1f}", names[k], samples[k][rounds / 2], samples[k][rounds * 99 / 100]);
    }
    printf("}\n");
    dbus_connection_close(c);
    return 0;
}

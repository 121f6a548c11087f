/* make bench: the share sheet's first frame (issue 23 item 4: "sheet visible within 150 ms of the
 * call", measured on Xvfb). One round:
 *
 *   t0  posix_spawn of the sheet program, its candidates on stdin (a pipe written at once);
 *   t1  the MapNotify of its top-level window (watched through SubstructureNotify on the root:
 *       no window manager, so top-levels are the root's children; a mapped window the round did
 *       not start with is the sheet's);
 *   t2  the first frame: the window's pixels are no longer all one colour (GTK and zenity map
 *       the window, then draw; an empty or one-colour window is not a dialog a person sees).
 *
 * The figures are t1 - t0 ("mapped") and t2 - t0 ("frame"), in milliseconds, CLOCK_MONOTONIC, and
 * the CPU time the sheet process used (wait4's rusage: its children only when it reaped them). The
 * sheet is then closed (SIGTERM to its process group) and reaped, untimed, before the next round.
 *
 *   sheet-frame ROUNDS CANDIDATES-FILE PROGRAM [ARG...]
 *       prints one JSON object: {"rounds": N, "mapped_ms": [...], "frame_ms": [...],
 *       "cpu_ms": [...], "cpu_p50": c, "mapped_p50": x, "frame_p50": y, "frame_p90": z}. DISPLAY names the X server.
 *       A round that shows no frame within 20 s fails the run (exit 1).
 *
 * With SHEET_FRAME_CALL=1 PROGRAM is not the sheet but a client calling Share on a running
 * schemebridged (`gdbus call … Share`), so t0 is the call (the client's own start included) and the
 * window is the one the service shows (its warm spare, or a sheet it starts). The sheet is then
 * closed by killing its X client (the service gets a cancel, and starts the next spare), and the
 * next round waits for that spare: a new top-level created on the root (GDK's leader window, made
 * when the spare opens the display) and then SHEET_FRAME_SETTLE_MS (1000) for its warm-up.
 * "cpu_ms" is then the client's CPU time.
 *
 * With SHEET_FRAME_THUMB=RRGGBB the round goes on after the first frame until the window's top
 * left (its first 200x200 pixels: the sheet's preview) shows a pixel of that colour (each
 * channel within 40): t3, the shared picture's thumbnail on screen. "thumb_ms" is t3 - t2 (after
 * the first frame) and "thumb_p50" its median. A round that shows no thumbnail within 20 s fails.
 */
#define _GNU_SOURCE
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int ignore_errors(Display *d, XErrorEvent *e) { (void)d; (void)e; return 0; }

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *v, int n, double p) {
    double *s = malloc(sizeof(double) * n);
    memcpy(s, v, sizeof(double) * n);
    qsort(s, n, sizeof(double), cmp);
    double r = s[(int)(p * (n - 1) + 0.5)];
    free(s);
    return r;
}

/* Whether the window shows more than one colour (its first frame is drawn). */
static int drawn(Display *d, Window w) {
    XWindowAttributes a;
    if (!XGetWindowAttributes(d, w, &a) || a.map_state != IsViewable) return 0;
    XImage *im = XGetImage(d, w, 0, 0, a.width, a.height, AllPlanes, ZPixmap);
    if (!im) return 0;
    unsigned long first = XGetPixel(im, 0, 0);
    int varied = 0;
    for (int y = 0; y < a.height && !varied; y += 2)
        for (int x = 0; x < a.width; x += 2)
            if (XGetPixel(im, x, y) != first) { varied = 1; break; }
    XDestroyImage(im);
    return varied;
}

/* Whether the window's top left shows a pixel of colour `rgb` (each channel within 40). */
static int shows_colour(Display *d, Window w, unsigned long rgb) {
    XWindowAttributes a;
    if (!XGetWindowAttributes(d, w, &a) || a.map_state != IsViewable) return 0;
    int width = a.width < 200 ? a.width : 200, height = a.height < 200 ? a.height : 200;
    XImage *im = XGetImage(d, w, 0, 0, width, height, AllPlanes, ZPixmap);
    if (!im) return 0;
    int want[3] = {(int)(rgb >> 16 & 255), (int)(rgb >> 8 & 255), (int)(rgb & 255)}, found = 0;
    for (int y = 0; y < height && !found; y++)
        for (int x = 0; x < width; x++) {
            unsigned long p = XGetPixel(im, x, y);
            int got[3] = {(int)((p & im->red_mask) >> 16), (int)((p & im->green_mask) >> 8), (int)(p & im->blue_mask)};
            if (abs(got[0] - want[0]) <= 40 && abs(got[1] - want[1]) <= 40 && abs(got[2] - want[2]) <= 40) { found = 1; break; }
        }
    XDestroyImage(im);
    return found;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: sheet-frame ROUNDS CANDIDATES-FILE PROGRAM [ARG...]\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    size_t input_len;
    char *input = slurp(argv[2], &input_len);
    Display *d = XOpenDisplay(NULL);
    if (!d) { fprintf(stderr, "sheet-frame: cannot open the display\n"); return 2; }
    XSetErrorHandler(ignore_errors);
    Window root = DefaultRootWindow(d);
    XSelectInput(d, root, SubstructureNotifyMask);
    XSync(d, False);
    signal(SIGPIPE, SIG_IGN);
    int call = getenv("SHEET_FRAME_CALL") && strcmp(getenv("SHEET_FRAME_CALL"), "1") == 0;
    int settle = getenv("SHEET_FRAME_SETTLE_MS") ? atoi(getenv("SHEET_FRAME_SETTLE_MS")) : 1000;
    const char *thumb_colour = getenv("SHEET_FRAME_THUMB");
    unsigned long thumb_rgb = thumb_colour ? strtoul(thumb_colour, NULL, 16) : 0;
    int created = 1; /* the first spare was started before this program connected */
    double *mapped = calloc(rounds, sizeof(double)), *frame = calloc(rounds, sizeof(double)), *cpu = calloc(rounds, sizeof(double));
    double *thumb = calloc(rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        int in[2];
        if (pipe2(in, O_CLOEXEC) != 0) { perror("pipe"); return 2; }
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        /* Its stdout (the answer, or the caller's reply) is not ours: ours is the JSON. */
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
        if (call) {
            /* The next spare: a new top-level on the root, then its warm-up. */
            for (double until = now_ms() + 60000; !created && now_ms() < until;) {
                while (XPending(d)) {
                    XEvent e;
                    XNextEvent(d, &e);
                    if (e.type == CreateNotify && e.xcreatewindow.parent == root) created = 1;
                }
                struct pollfd p = {ConnectionNumber(d), POLLIN, 0};
                poll(&p, 1, 50);
            }
            usleep(settle * 1000);
        }
        XSync(d, True); /* drop events of earlier rounds */
        created = 0;
        double t0 = now_ms();
        pid_t pid;
        if (posix_spawnp(&pid, argv[3], &fa, &attr, argv + 3, environ) != 0) { perror(argv[3]); return 2; }
        close(in[0]);
        if (write(in[1], input, input_len) < 0) { /* the sheet may not read it all: fine */ }
        close(in[1]);
        Window w = 0;
        double t1 = 0, t2 = 0, deadline = t0 + 20000;
        while (!t2 && now_ms() < deadline) {
            while (XPending(d)) {
                XEvent e;
                XNextEvent(d, &e);
                if (e.type == MapNotify && e.xmap.event == root && !w) { w = e.xmap.window; t1 = now_ms(); }
                if (e.type == CreateNotify && e.xcreatewindow.parent == root && w) created = 1;
            }
            if (w && drawn(d, w)) { t2 = now_ms(); break; }
            struct pollfd p = {ConnectionNumber(d), POLLIN, 0};
            poll(&p, 1, w ? 1 : 50);
        }
        double t3 = 0;
        while (thumb_colour && t2 && !t3 && now_ms() < t2 + 20000) {
            if (shows_colour(d, w, thumb_rgb)) { t3 = now_ms(); break; }
            usleep(1000);
        }
        if (call && w) {
            XKillClient(d, w);
            XSync(d, False);
        } else {
            kill(-pid, SIGTERM);
        }
        int status;
        struct rusage ru;
        wait4(pid, &status, 0, &ru);
        cpu[r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        if (!t2) { fprintf(stderr, "sheet-frame: round %d: no frame within 20 s\n", r + 1); return 1; }
        if (thumb_colour && !t3) { fprintf(stderr, "sheet-frame: round %d: no thumbnail within 20 s\n", r + 1); return 1; }
        thumb[r] = t3 ? t3 - t2 : 0;
        mapped[r] = t1 - t0;
        frame[r] = t2 - t0;
        usleep(100000); /* let the server settle between rounds */
    }
    printf("{\"rounds\": %d, \"mapped_ms\": [", rounds);
    for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? ", " : "", mapped[r]);
    printf("], \"frame_ms\": [");
    for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? ", " : "", frame[r]);
    printf("], \"cpu_ms\": [");
    for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? ", " : "", cpu[r]);
    printf("]");
    if (thumb_colour) {
        printf(", \"thumb_ms\": [");
        for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? ", " : "", thumb[r]);
        printf("], \"thumb_p50\": %.1f", percentile(thumb, rounds, 0.5));
    }
    printf(", \"cpu_p50\": %.1f", percentile(cpu, rounds, 0.5));
    printf(", \"mapped_p50\": %.1f, \"frame_p50\": %.1f, \"frame_p90\": %.1f}\n", percentile(mapped, rounds, 0.5),
           percentile(frame, rounds, 0.5), percentile(frame, rounds, 0.9));
    XCloseDisplay(d);
    return 0;
}

/* fntrace SYMS OUT PROGRAM ARGS...: runs PROGRAM under ptrace with a one-shot breakpoint (int3) at
 * the start of every function listed in SYMS (lines "HEXADDR NAME", addresses as in the program's
 * symbol table, `nm` output), and writes to OUT the name of each function the first time any of
 * its threads enters it, in that order, until PROGRAM exits (SIGTERM and SIGINT are passed on).
 * scripts/link/order.sh runs it to write the release link's function order. x86-64 Linux only;
 * the processes PROGRAM spawns are not traced (they run libc's spawn code, then exec).
 * SIGUSR1 to fntrace sets every breakpoint again and writes a line "#" (scripts/link/order.sh's
 * share part: the functions a device share runs, the first entries after that line). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct { unsigned long addr; char *name; unsigned char orig; int hit; } Fn;
static Fn *fns; static size_t nfns;
static pid_t child;
static void forward(int sig) { kill(child, sig); }
static volatile sig_atomic_t rearm;
static void onUsr1(int sig) { (void)sig; rearm = 1; }

static int cmp(const void *a, const void *b) {
    unsigned long x = ((const Fn *)a)->addr, y = ((const Fn *)b)->addr;
    return x < y ? -1 : x > y;
}
static Fn *find(unsigned long a) {
    size_t lo = 0, hi = nfns;
    while (lo < hi) { size_t m = (lo + hi) / 2; if (fns[m].addr < a) lo = m + 1; else hi = m; }
    return lo < nfns && fns[lo].addr == a ? &fns[lo] : NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: fntrace SYMS OUT PROGRAM ARGS...\n"); return 2; }
    FILE *s = fopen(argv[1], "r"); if (!s) { perror(argv[1]); return 1; }
    size_t cap = 1 << 16; fns = malloc(cap * sizeof *fns);
    char line[65536];
    while (fgets(line, sizeof line, s)) {
        char *sp = strchr(line, ' '); if (!sp) continue;
        *sp = 0; line[strcspn(sp + 1, "\n") + (sp + 1 - line)] = 0;
        if (nfns == cap) fns = realloc(fns, (cap *= 2) * sizeof *fns);
        fns[nfns].addr = strtoul(line, NULL, 16); fns[nfns].name = strdup(sp + 1); fns[nfns].hit = 0; nfns++;
    }
    fclose(s);
    qsort(fns, nfns, sizeof *fns, cmp);
    { size_t w = 0; for (size_t i = 0; i < nfns; i++) if (!w || fns[w - 1].addr != fns[i].addr) fns[w++] = fns[i]; nfns = w; }
    FILE *out = fopen(argv[2], "w"); if (!out) { perror(argv[2]); return 1; }

    child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int st;
    waitpid(child, &st, 0); /* the exec stop */
    ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL);
    /* the load address: the first mapping of the program (offset 0) */
    char path[64], exe[4096]; snprintf(path, sizeof path, "/proc/%d/exe", child);
    ssize_t n = readlink(path, exe, sizeof exe - 1); exe[n < 0 ? 0 : n] = 0;
    snprintf(path, sizeof path, "/proc/%d/maps", child);
    FILE *m = fopen(path, "r"); unsigned long base = 0;
    while (fgets(line, sizeof line, m)) {
        unsigned long a, off; char p[4096] = "";
        if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &a, &off, p) == 3 && strcmp(p, exe) == 0 && off == 0) { base = a; break; }
    }
    fclose(m);
    snprintf(path, sizeof path, "/proc/%d/mem", child);
    int mem = open(path, O_RDWR);
    if (mem < 0) { perror(path); return 1; }
    unsigned char cc = 0xCC;
    size_t armed = 0;
    for (size_t i = 0; i < nfns; i++) {
        fns[i].addr += base;
        if (pread(mem, &fns[i].orig, 1, fns[i].addr) != 1) continue;
        if (pwrite(mem, &cc, 1, fns[i].addr) == 1) armed++; else fns[i].hit = 1;
    }
    fprintf(stderr, "fntrace: %zu breakpoints at base %#lx\n", armed, base);
    signal(SIGTERM, forward); signal(SIGINT, forward);
    struct sigaction usr1 = { .sa_handler = onUsr1 }; /* no SA_RESTART: waitpid returns EINTR */
    sigaction(SIGUSR1, &usr1, NULL);
    ptrace(PTRACE_CONT, child, 0, 0);
    size_t hits = 0;
    for (;;) {
        if (rearm) {
            rearm = 0;
            for (size_t i = 0; i < nfns; i++)
                if (fns[i].hit && pwrite(mem, &cc, 1, fns[i].addr) == 1) fns[i].hit = 0;
            fprintf(out, "#\n"); fflush(out);
        }
        pid_t t = waitpid(-1, &st, __WALL);
        if (t < 0) { if (errno == EINTR) continue; break; }
        if (WIFEXITED(st) || WIFSIGNALED(st)) { if (t == child) break; continue; }
        if (!WIFSTOPPED(st)) continue;
        int sig = WSTOPSIG(st), deliver = 0;
        if (sig == SIGTRAP && (st >> 16) == 0) {
            struct user_regs_struct r; ptrace(PTRACE_GETREGS, t, 0, &r);
            Fn *f = find(r.rip - 1);
            if (f) {
                if (!f->hit) {
                    f->hit = 1; pwrite(mem, &f->orig, 1, f->addr);
                    fprintf(out, "%s\n", f->name); hits++;
                }
                r.rip -= 1; ptrace(PTRACE_SETREGS, t, 0, &r);
            } else deliver = sig;
        } else if (sig == SIGTRAP) {
            deliver = 0; /* a ptrace event (clone) */
        } else if (sig == SIGSTOP) {
            deliver = 0; /* a new thread's first stop */
        } else deliver = sig;
        ptrace(PTRACE_CONT, t, 0, deliver);
    }
    fclose(out);
    fprintf(stderr, "fntrace: %zu functions entered\n", hits);
    return 0;
}

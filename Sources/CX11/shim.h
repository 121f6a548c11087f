#ifndef SCHEMEBRIDGE_CX11_SHIM_H
#define SCHEMEBRIDGE_CX11_SHIM_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>

/*
 * Two Linux primitives the launch-image helper needs next to Xlib that Swift's Glibc module
 * does not import: signalfd (SIGTERM as a readable descriptor in the poll loop) and
 * pidfd_open (the handler's exit as a readable descriptor), the latter through syscall(2)
 * because syscall is variadic and cannot be called from Swift.
 */
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* pidfd_open(2): a descriptor that polls readable once `pid` has exited; -1 and errno on failure. */
static inline int schemebridge_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

#endif

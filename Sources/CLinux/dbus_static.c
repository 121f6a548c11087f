/* The two libsystemd calls in libdbus's archive (scripts/link/libdbus-1.so links it into the
 * release service): its socket-activated server (a "systemd:" listening address) asks for the
 * sockets systemd passed. A client never listens, so none were passed. Hidden and weak: where
 * libdbus is the shared library (every other build), its own libsystemd answers, never these. */
#include <errno.h>

__attribute__((visibility("hidden"), weak)) int sd_listen_fds(int unset_environment) {
    (void)unset_environment;
    return 0;
}

__attribute__((visibility("hidden"), weak)) int sd_is_socket(int fd, int family, int type, int listening) {
    (void)fd; (void)family; (void)type; (void)listening;
    return -ENOSYS;
}

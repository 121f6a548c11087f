#!/bin/sh
# Installs the Debian packages SchemeBridge needs to build, run and test.
# As root it installs what is missing (apt-get update first); otherwise it says what to install.
# Arguments name more packages a caller needs (make bench: a C compiler).
set -eu

# One line a need, so features add lines rather than edit one.
PACKAGES="libdbus-1-dev pkg-config dbus-daemon dbus-bin libglib2.0-bin python3-dbus python3-gi \
desktop-file-utils xdg-utils xvfb xauth libx11-dev libpng-dev e2fsprogs xfsprogs shared-mime-info zenity xdotool make systemd groff-base"
# schemebridge, the lean entry point, is C against libdbus (Makefile: lean-entry).
PACKAGES="$PACKAGES gcc libc6-dev"
# The C and Qt examples of examples/, built and run by make test (gdbus-codegen, gio-2.0).
PACKAGES="$PACKAGES libglib2.0-dev gcc libc6-dev qtbase5-dev g++"
# The Rust example (examples/rust, zbus 1.9), built offline from Debian's crates in /usr/share/cargo/registry.
PACKAGES="$PACKAGES cargo rustc librust-zbus-dev"
# The Wayland launch-feedback tests: a headless compositor with Xwayland.
PACKAGES="$PACKAGES weston xwayland"
# The Flatpak tests (Tests/ServiceTests/Flatpak) run real sandboxed apps offline: flatpak,
# bubblewrap, xdg-dbus-proxy, xdg-desktop-portal (xdg-document-portal, xdg-permission-store),
# fuse3 and util-linux (unshare, nsenter).
PACKAGES="$PACKAGES flatpak bubblewrap xdg-dbus-proxy xdg-desktop-portal fuse3 util-linux"
# The Wayland focus tests (WaylandFocusTests): sway 1.7 headless has xdg_activation_v1; its test
# client is built with wayland-scanner (libwayland-dev) from wayland-protocols' XML.
PACKAGES="$PACKAGES sway libwayland-dev wayland-protocols"
# The share tests: "Copy" is read back from the clipboard.
PACKAGES="$PACKAGES xclip"
# "Copy" under Wayland (ShareWaylandCopyTests): wl-copy, and wl-paste to read it back.
PACKAGES="$PACKAGES wl-clipboard"
# The share sheet: GTK 3 through python3-gi.
PACKAGES="$PACKAGES gir1.2-gtk-3.0"
# kdeconnect (kdeconnectd) and iproute2 (ip netns, veth): DeviceShareTests runs two engines in two network namespaces.
PACKAGES="$PACKAGES kdeconnect iproute2"
# GSConnect (its service run by gjs, headless on Xvfb; openssl makes its certificate): GSConnectShareTests pairs it with kdeconnectd.
PACKAGES="$PACKAGES gnome-shell-extension-gsconnect gjs openssl"
# The systemd user session test (scripts/systemd-session-proof.sh: a Debian 12 container booted
# with systemd-nspawn).
PACKAGES="$PACKAGES debootstrap systemd-container"
# What the caller names (make bench: a C compiler).
PACKAGES="$PACKAGES $*"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "==> installing Debian packages:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
        echo "SchemeBridge needs these Debian packages:$missing" >&2
        echo "install them with:  sudo apt-get install -y$missing" >&2
        exit 1
    fi
fi

# libdbus and gdbus want a machine id; containers often lack one.
if [ ! -s /etc/machine-id ] && [ ! -s /var/lib/dbus/machine-id ]; then
    if [ "$(id -u)" = 0 ]; then
        dbus-uuidgen --ensure
    else
        echo "no D-Bus machine id: run  sudo dbus-uuidgen --ensure" >&2
        exit 1
    fi
fi

# The test suites run many private buses and services at once, each holding an inotify
# instance; the default limit of 128 per user runs out beside a desktop session's own.
if [ "$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 1024)" -lt 1024 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo 1024 > /proc/sys/fs/inotify/max_user_instances 2>/dev/null || true
    else
        echo "note: fs.inotify.max_user_instances is below 1024; the tests may run out (sudo sysctl fs.inotify.max_user_instances=1024)" >&2
    fi
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "the Swift toolchain (6.x) is not on PATH: install it from swift.org and add its usr/bin to PATH" >&2
    exit 1
fi

#!/bin/sh
# The Debian packages SchemeBridge needs, by purpose:
#   scripts/deps.sh build [PKG…]   building (make build, make release)
#   scripts/deps.sh run [PKG…]     building and the demo (make run)
#   scripts/deps.sh test [PKG…]    building, the demo and every test suite (make test): the test stacks
#   scripts/deps.sh package [PKG…] building and the Debian package's tools and proofs (docs/DEVELOPING.md)
#   scripts/deps.sh --list SET     prints the set's packages, one line (README's lists are checked against it)
# Each set includes the one before it. As root it installs what is missing (apt-get update first);
# otherwise it prints the one `apt-get install` line for what is missing and exits 1. Further
# arguments name more packages a caller needs (make bench: a C compiler).
set -eu

# Building: libdbus (the D-Bus layer and the C entry point), Xlib and libpng (the launch-image
# helper), a C compiler for the lean entry point, pkg-config, make.
BUILD="libdbus-1-dev pkg-config libx11-dev libpng-dev gcc libc6-dev make"
# The dialogs' translations are compiled by make install (msgfmt, dialogs/po/*.po).
BUILD="$BUILD gettext"
# libcurl (OpenSSL flavour): app links fetch https://HOST/.well-known/assetlinks.json with it.
BUILD="$BUILD libcurl4-openssl-dev"

# The demo (make run): a private bus (dbus-daemon), the clients it drives (dbus-send, gdbus), the
# demo apps (python3-dbus, python3-gi), the type database, and the share sheet and picker drawn on
# a private Xvfb (GTK 3, zenity, xdotool to be the user), saved as pictures (scripts/x11-screenshot.py:
# GTK 3's Gdk). file and procps for the demo's own listing.
RUN="$BUILD dbus-daemon dbus-bin libglib2.0-bin python3-dbus python3-gi gir1.2-gtk-3.0 shared-mime-info \
xvfb xauth zenity xdotool file procps"

# The test stacks (make test), one line a need, so features add lines rather than edit one.
TEST="$RUN desktop-file-utils xdg-utils e2fsprogs xfsprogs systemd groff-base"
# The C and Qt examples of examples/, built and run by make test (gdbus-codegen, gio-2.0).
TEST="$TEST libglib2.0-dev g++ qtbase5-dev"
# The Rust example (examples/rust, zbus 1.9), built offline from Debian's crates in /usr/share/cargo/registry.
TEST="$TEST cargo rustc librust-zbus-dev"
# The Wayland launch-feedback tests: a headless compositor with Xwayland.
TEST="$TEST weston xwayland"
# The Flatpak tests (Tests/ServiceTests/Flatpak) run real sandboxed apps offline: flatpak,
# bubblewrap, xdg-dbus-proxy, xdg-desktop-portal (xdg-document-portal, xdg-permission-store),
# fuse3 and util-linux (unshare, nsenter).
TEST="$TEST flatpak bubblewrap xdg-dbus-proxy xdg-desktop-portal fuse3 util-linux"
# The portal tests (Tests/ServiceTests/Portal, issue 40): the real GTK backend of
# xdg-desktop-portal (its AppChooser and FileChooser), drawing on a private Xvfb.
TEST="$TEST xdg-desktop-portal-gtk"
# The Wayland focus tests (WaylandFocusTests): sway 1.7 headless has xdg_activation_v1; its test
# client is built with wayland-scanner (libwayland-dev) from wayland-protocols' XML.
TEST="$TEST sway libwayland-dev wayland-protocols"
# The dialogs' launch token test (DialogLaunchTokenTests): a key press into the chooser on sway
# headless, which has no input device: wtype types through a virtual keyboard.
# grim: the dialogs' pictures on sway taken by hand (wlr-screencopy), as on Xvfb by the tests.
TEST="$TEST wtype grim"
# mako (mako-notifier): a Wayland notification server (layer-shell) on sway, for the received-transfer
# notification pictured on Wayland (ReceivedNotificationTests).
TEST="$TEST mako-notifier"
# The dialogs' accessibility test: the AT-SPI bus and registry (at-spi2-core) and its typelib.
TEST="$TEST at-spi2-core gir1.2-atspi-2.0"
# The share tests: "Copy" is read back from the clipboard; under Wayland with wl-copy/wl-paste.
TEST="$TEST xclip wl-clipboard"
# kdeconnect (kdeconnectd) and iproute2 (ip netns, veth): DeviceShareTests runs two engines in two network namespaces.
TEST="$TEST kdeconnect iproute2"
# GSConnect (its service run by gjs, headless on Xvfb; openssl makes its certificate; patch applies its closing fix to a copy): GSConnectShareTests pairs it with kdeconnectd.
TEST="$TEST gnome-shell-extension-gsconnect gjs openssl patch"
# A drawing notification server (ReceivedNotificationTests: the received-transfer notification on a private
# Xvfb, its picture in docs/images); the other tests use a python3-dbus server under Tests that can press its buttons.
TEST="$TEST notification-daemon"
# The systemd user session test (scripts/systemd-session-proof.sh: a Debian 12 container booted
# with systemd-nspawn).
TEST="$TEST debootstrap systemd-container"

# The Debian package (debian/): dpkg-buildpackage (dpkg-dev, debhelper, fakeroot), lintian, the
# autopkgtest, and the install/purge proof in a booted Debian 12 container (scripts/deb-session-proof.sh).
PACKAGE="$BUILD dpkg-dev debhelper fakeroot lintian autopkgtest debootstrap systemd-container"

set_of() {
    case "$1" in
        build) echo "$BUILD" ;;
        run) echo "$RUN" ;;
        test) echo "$TEST" ;;
        package) echo "$PACKAGE" ;;
        *) echo "scripts/deps.sh: the sets are build, run, test and package, not '$1'" >&2; exit 2 ;;
    esac
}

if [ "${1:-}" = "--list" ]; then
    # One package once, in the order first named.
    set_of "${2:-test}" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | paste -s -d ' '
    exit 0
fi
SET="${1:-test}"
shift 2> /dev/null || true
PACKAGES="$(set_of "$SET") $*"

missing=""
for p in $PACKAGES; do
    case " $missing " in *" $p "*) continue ;; esac
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "==> installing Debian packages ($SET):$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
        echo "SchemeBridge ($SET) needs these Debian packages:$missing" >&2
        echo "sudo apt-get install -y$missing" >&2
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
if [ "$SET" = test ] && [ "$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 1024)" -lt 1024 ]; then
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

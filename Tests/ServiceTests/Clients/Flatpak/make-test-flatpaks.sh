#!/bin/sh
# make-test-flatpaks.sh DIR — builds, offline, a minimal Flatpak runtime from the host's own files
# and the test apps, and installs them into a user installation at DIR/user (FLATPAK_USER_DIR),
# as flatpak's own tests do (tests/make-test-runtime.sh, make-test-app.sh). Run once per test
# process by FlatpakInstallation.swift; everything lives under DIR.
#
# Apps (runtime org.test.Platform, branch stable):
#   org.test.Caller   --talk-name=io.github.schemebridge.SchemeBridge1 (a sandboxed caller)
#   org.test.NoTalk   no talk name (the proxy must refuse it)
#   org.test.Handler  --talk-name=…SchemeBridge1, exports org.test.Handler.desktop (text/plain and
#                     x-scheme-handler/fpkh; flatpak rewrites its Exec to
#                     `flatpak run … --file-forwarding org.test.Handler @@u %U @@`). handler.sh
#                     records what it got and could do in its own data dir (see below). Its
#                     action `share` is a share target for text/plain (share.sh, below).
#   org.test.Links    exports org.test.Links.desktop claiming the app links of fpk.applinks.test
#                     (X-SchemeBridge-AppLinks=); links.sh records its argv and the sandbox's
#                     /.flatpak-info in its data dir. In the repo only: the app-link tests install
#                     it where they need it (a system or a user installation).
# The runtime holds gio (`gio open` goes through the portal in a sandbox) and share-client, openfile-client and portal-client (their .c files beside
# this script, built here with gcc and libdbus): a sharing app, an app opening its own file with
# OpenFile, and an app opening a URL or its file through the desktop portal, for inside the sandbox.
set -eu
DIR=$1
export HOME="$DIR/home" FLATPAK_USER_DIR="$DIR/user" FLATPAK_SYSTEM_HELPER_ON_SESSION=1
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$DIR/no-system-bus"
unset DBUS_SESSION_BUS_ADDRESS || true
mkdir -p "$HOME"
ARCH=$(flatpak --default-arch)
REPO="$DIR/repo"

RT="$DIR/build-runtime"
mkdir -p "$RT/files" "$RT/usr/bin" "$RT/usr/lib"
ln -s ../lib "$RT/usr/lib64"
printf '[Runtime]\nname=org.test.Platform\n' > "$RT/metadata"
cp /sbin/ldconfig "$RT/usr/bin/ldconfig"   # flatpak runs the runtime's ldconfig
for client in share-client openfile-client portal-client; do
    gcc -O1 -o "$RT/usr/bin/$client" "$(dirname "$0")/$client.c" $(pkg-config --cflags --libs dbus-1)
done
for b in bash cat mv sleep gdbus gio "$RT/usr/bin/share-client" "$RT/usr/bin/openfile-client" "$RT/usr/bin/portal-client"; do
    p=$(command -v "$b")
    case "$p" in "$RT"/*) ;; *) cp "$p" "$RT/usr/bin/" ;; esac
    ldd "$p" | sed 's/.* => //' | awk '{print $1}' | grep '^/' || true
done | sort -u | while read -r lib; do cp "$lib" "$RT/usr/lib/"; done
ln -s bash "$RT/usr/bin/sh"
flatpak build-export --disable-sandbox --runtime "$REPO" "$RT" stable >/dev/null

for app in org.test.Caller org.test.NoTalk org.test.Handler; do
    A="$DIR/build-$app"
    mkdir -p "$A/files/bin"
    printf '[Application]\nname=%s\nruntime=org.test.Platform/%s/stable\nsdk=org.test.Platform/%s/stable\n' "$app" "$ARCH" "$ARCH" > "$A/metadata"
    talk=--talk-name=io.github.schemebridge.SchemeBridge1
    [ "$app" = org.test.NoTalk ] && talk=
    if [ "$app" = org.test.Handler ]; then
        mkdir -p "$A/files/share/applications"
        printf '[Desktop Entry]\nType=Application\nName=Sandboxed Handler\nExec=handler.sh %%U\nMimeType=text/plain;x-scheme-handler/fpkh;\nActions=share;\n\n[Desktop Action share]\nName=Share with the Sandboxed Handler\nExec=share.sh %%F\nX-SchemeBridge-Share-Types=text/plain;\n' \
            > "$A/files/share/applications/org.test.Handler.desktop"
        # The share target: for each argument (a path) appends its bytes to share-read.out and
        # tries to write it (share-write.out); reads its share pasteboard (FindPasteboard,
        # ReadBytes of item 0 as text/plain) into share-board.out; source, reply token and
        # pasteboard name into share-env; argv last (NUL-separated) into share-argv. It answers by
        # exiting 0 (the share is done).
        cat > "$A/files/bin/share.sh" <<'SH'
#!/bin/sh
d="$XDG_DATA_HOME"
: > "$d/share-read.out"; : > "$d/share-write.out"
for p in "$@"; do
    cat "$p" >> "$d/share-read.out" 2>> "$d/share-read.err"
    if (printf 'written in the sandbox\n' >> "$p") 2>> "$d/share-write.err"; then echo "wrote $p" >> "$d/share-write.out"; else echo "denied $p" >> "$d/share-write.out"; fi
done
printf 'source=%s\nreply-token=%s\npasteboard=%s\n' "$SCHEMEBRIDGE_SOURCE" "$SCHEMEBRIDGE_REPLY_TOKEN" "$SCHEMEBRIDGE_SHARE_PASTEBOARD" > "$d/share-env"
if [ -n "$SCHEMEBRIDGE_SHARE_PASTEBOARD" ]; then
    sb() { gdbus call --session --dest io.github.schemebridge.SchemeBridge1 "$@"; }
    path=$(sb --object-path /io/github/schemebridge/SchemeBridge1 --method io.github.schemebridge.Pasteboards1.FindPasteboard "$SCHEMEBRIDGE_SHARE_PASTEBOARD" 2>> "$d/share-board.err")
    path=${path#*\'}; path=${path%%\'*}
    sb --object-path "$path" --method io.github.schemebridge.Pasteboard1.ReadBytes 0 text/plain > "$d/share-board.out" 2>> "$d/share-board.err"
fi
printf '%s\0' "$@" > "$d/share-argv.tmp"
mv "$d/share-argv.tmp" "$d/share-argv"
SH
        chmod +x "$A/files/bin/share.sh"
        # With "await" in an argument it first writes awaiting and waits for go (the test says
        # when to go on). For each argument (a path or file:// URL): appends its bytes to read.out and tries
        # to append a line to it (write.out: "wrote PATH" or "denied PATH"); env: its source
        # and reply token; with "hold" in an argument it writes holding and waits for release;
        # answers a reply request through the bus; argv last (NUL-separated).
        cat > "$A/files/bin/handler.sh" <<'SH'
#!/bin/sh
d="$XDG_DATA_HOME"
: > "$d/read.out"; : > "$d/write.out"
case "$*" in *await*)
    : > "$d/awaiting"
    while [ ! -e "$d/go" ] && [ -d "$d" ]; do sleep 0.1; done ;;
esac
for a in "$@"; do
    p="${a#file://}"
    cat "$p" >> "$d/read.out" 2>> "$d/read.err"
    if (printf 'written in the sandbox\n' >> "$p") 2>> "$d/write.err"; then echo "wrote $p" >> "$d/write.out"; else echo "denied $p" >> "$d/write.out"; fi
done
printf 'source=%s\nreply-token=%s\n' "$SCHEMEBRIDGE_SOURCE" "$SCHEMEBRIDGE_REPLY_TOKEN" > "$d/env"
case "$*" in *hold*)
    # Stays (and answers only then) until the test writes $d/release or removes the folder.
    : > "$d/holding"
    while [ ! -e "$d/release" ] && [ -d "$d" ]; do sleep 0.1; done ;;
esac
if [ -n "$SCHEMEBRIDGE_REPLY_TOKEN" ]; then
    gdbus call --session --dest io.github.schemebridge.SchemeBridge1 --object-path /io/github/schemebridge/SchemeBridge1 \
        --method io.github.schemebridge.SchemeBridge1.Reply "$SCHEMEBRIDGE_REPLY_TOKEN" 0 "{'answer': <'from the sandbox'>}" > "$d/reply.out" 2>&1
fi
printf '%s\0' "$@" > "$d/argv.tmp"
mv "$d/argv.tmp" "$d/argv"
SH
        chmod +x "$A/files/bin/handler.sh"
        command=handler.sh
    else
        printf '#!/bin/sh\necho "hello from $FLATPAK_ID"\n' > "$A/files/bin/hello.sh"; chmod +x "$A/files/bin/hello.sh"
        command=hello.sh
    fi
    # shellcheck disable=SC2086
    flatpak build-finish $talk --command=$command "$A" >/dev/null
    flatpak build-export --disable-sandbox "$REPO" "$A" stable >/dev/null
done

A="$DIR/build-org.test.Links"
mkdir -p "$A/files/bin" "$A/files/share/applications"
printf '[Application]\nname=org.test.Links\nruntime=org.test.Platform/%s/stable\nsdk=org.test.Platform/%s/stable\n' "$ARCH" "$ARCH" > "$A/metadata"
printf '[Desktop Entry]\nType=Application\nName=Sandboxed Links\nExec=links.sh %%u\nX-SchemeBridge-AppLinks=fpk.applinks.test;\n' \
    > "$A/files/share/applications/org.test.Links.desktop"
cat > "$A/files/bin/links.sh" <<'SH'
#!/bin/sh
d="$XDG_DATA_HOME"
cat /.flatpak-info > "$d/flatpak-info"
printf '%s\0' "$@" > "$d/argv.tmp"
mv "$d/argv.tmp" "$d/argv"
SH
chmod +x "$A/files/bin/links.sh"
flatpak build-finish --command=links.sh "$A" >/dev/null
flatpak build-export --disable-sandbox "$REPO" "$A" stable >/dev/null

flatpak --user remote-add --no-gpg-verify test-repo "file://$REPO"
flatpak --user install -y --noninteractive test-repo org.test.Platform org.test.Caller org.test.NoTalk org.test.Handler >/dev/null
echo installed

#!/bin/bash
# `make run`: build, start a private session bus (always: the demo never touches your own
# session), install the demo apps into a temporary XDG tree, let the bus activate
# schemebridged, and drive it with dbus-send and gdbus while dbus-monitor prints its signals.
# Then replies: an app asks a handler for a color and prints its answer (`schemebridge open
# --wait`, and desktop/demo/sketch-demo over D-Bus), and a forged reply is refused. Then
# pasteboards (seed 001): desktop/demo/person-editor hands a person and a photo to the viewer:
# handler, desktop/demo/person-viewer, through a private pasteboard.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="$(swift build --show-bin-path)"
WORK="$(mktemp -d /tmp/schemebridge-demo.XXXXXX)"
BUS_PID=""
MON_PID=""
SKETCH_PID=""
# Seed 000's share flow (issue 23): share_demo_display, share_demo, share_demo_stop.
source scripts/demo-share.sh
cleanup() {
    share_demo_stop
    [ -n "$SKETCH_PID" ] && kill "$SKETCH_PID" 2>/dev/null || true
    [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null || true
    [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
# A step that did not do what the demo shows: say so, and make `make run` fail (CI runs it).
demo_failed() { printf '\nmake run: FAILED: %s\n' "$*" >&2; exit 1; }
show() { printf '$ %s\n' "$*"; "$@"; }

say "a private session bus, a temporary XDG tree, the demo apps"
mkdir -p "$WORK/services" "$WORK/data/applications" "$WORK/config" "$WORK/state"
sed "s|@bindir@|$BIN|" dbus/io.github.schemebridge.SchemeBridge1.service.in > "$WORK/services/io.github.schemebridge.SchemeBridge1.service"
for app in org.example.TodoList org.example.ColorPicker org.example.Sketch org.example.PersonEditor org.example.PersonViewer org.example.NotesViewer; do
    sed "s|@demodir@|$PWD/desktop/demo|" "desktop/demo/$app.desktop.in" > "$WORK/data/applications/$app.desktop"
done
cat > "$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$WORK/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$WORK/services</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
# The system's shared-mime-info database (documents' types), and none of its applications.
mkdir -p "$WORK/sysdata" && ln -s /usr/share/mime "$WORK/sysdata/mime"
export XDG_DATA_HOME="$WORK/data" XDG_DATA_DIRS="$WORK/sysdata" XDG_CONFIG_HOME="$WORK/config" XDG_CONFIG_DIRS="$WORK/none"
# Persistent pasteboards live under $XDG_STATE_HOME/schemebridge: the demo's own, never yours.
export XDG_STATE_HOME="$WORK/state"
export SCHEMEBRIDGE_DEMO_LOG="$WORK/handler.log"
: > "$SCHEMEBRIDGE_DEMO_LOG"
# The color picker's user: the demo writes the pick into this file (colorpicker-demo waits for it).
export SCHEMEBRIDGE_DEMO_PICK="$WORK/pick"
# The handlers (and the demo) run `schemebridge` from the build, as if installed.
export PATH="$BIN:$PATH"
# Without a display, a private Xvfb for the share sheet (before the bus: the service inherits DISPLAY).
share_demo_display
read -r DBUS_SESSION_BUS_ADDRESS BUS_PID < <(dbus-daemon --config-file="$WORK/bus.conf" --fork --print-address=1 --print-pid=1 | paste -s -d ' ')
export DBUS_SESSION_BUS_ADDRESS
echo "bus: $DBUS_SESSION_BUS_ADDRESS"
echo "handler: $XDG_DATA_HOME/applications/org.example.TodoList.desktop (MimeType=x-scheme-handler/todolist;)"

dbus-monitor --session "type='signal',interface='io.github.schemebridge.SchemeBridge1'" > "$WORK/monitor.log" 2>&1 &
MON_PID=$!
sleep 0.3

NAME=io.github.schemebridge.SchemeBridge1
OBJ=/io/github/schemebridge/SchemeBridge1
say "can it open a todolist: URL? (the first call bus-activates schemebridged)"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.CanOpenURL string:'todolist://add?task=milk'

say "open one — quotes, \$() and backticks stay one argument, no shell runs"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.OpenURL string:'todolist://add?task="milk & eggs" $(rm -rf ~) `id`'

say "the rich variant, with options, through gdbus"
show gdbus call --session --dest $NAME --object-path $OBJ --method $NAME.OpenURLWithOptions \
    'todolist://show?list=groceries' "{'activation-token': <'demo-token'>}"

say "its launch image (the iOS convention: Default-todolist@2x.png), shown while the handler starts"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.LaunchImageForURL string:'todolist://add?task=milk'
if [ -n "${DISPLAY:-}" ]; then
    echo "(DISPLAY=$DISPLAY: schemebridge-splash shows it centred on screen while the demo handler starts)"
else
    echo "(no DISPLAY here: with a notification server on the bus it would come as a notification; nothing is shown, opening works the same)"
fi

say "a scheme nobody handles is an error, not a silent success"
printf '$ %s\n' "dbus-send ... $NAME.OpenURL string:'nothing://here'"
dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.OpenURL string:'nothing://here' || true

if [ -x "$BIN/schemebridge" ]; then
    say "the xdg-open style command"
    show "$BIN/schemebridge" open 'todolist://from-the-cli' && echo "exit status $?"
fi

sleep 0.5
say "what the handler got"
cat "$SCHEMEBRIDGE_DEMO_LOG"
say "the signals dbus-monitor saw"
grep -A26 -E "member=(URLHandled|URLFailed)" "$WORK/monitor.log" | grep -vE "^--$" | sed -n "1,80p"

# ---- replies -------------------------------------------------------------------------------
LOGGED=$(wc -l < "$SCHEMEBRIDGE_DEMO_LOG")
# Prints what the demo handlers logged since the last call.
handler_said() {
    sleep 0.05
    tail -n +"$((LOGGED + 1))" "$SCHEMEBRIDGE_DEMO_LOG" | sed 's/^/    | /'
    LOGGED=$(wc -l < "$SCHEMEBRIDGE_DEMO_LOG")
}
status() { "$@" && echo "exit status 0" || echo "exit status $?"; }
echo "teal" > "$SCHEMEBRIDGE_DEMO_PICK"

say "replies: open a URL and wait for the handler's answer (pickcolor: → colorpicker-demo, which runs \`schemebridge reply\`)"
echo "$ schemebridge open --wait 'pickcolor://choose?for=cli'"
status schemebridge open --wait 'pickcolor://choose?for=cli'
handler_said

say "the same from an app: sketch-demo (python3-dbus) calls OpenURLWithReply and waits for its Response signal"
echo "$ desktop/demo/sketch-demo 'pickcolor://choose?for=sketch'"
status desktop/demo/sketch-demo 'pickcolor://choose?for=sketch'
handler_said

say "the user cancels in the picker: status=cancelled, exit status 5"
echo "cancel" > "$SCHEMEBRIDGE_DEMO_PICK"
echo "$ schemebridge open --wait 'pickcolor://choose?for=cli'"
status schemebridge open --wait 'pickcolor://choose?for=cli'
handler_said

say "a forged reply: a process that learned the handler's token still cannot answer (NotTheHandler)"
: > "$SCHEMEBRIDGE_DEMO_PICK"   # the user has not picked yet: the picker waits
desktop/demo/sketch-demo 'pickcolor://choose?for=sketch' > "$WORK/sketch.out" 2>&1 &
SKETCH_PID=$!
HANDLER_PID=""
for _ in $(seq 200); do
    HANDLER_PID=$(awk -v from="$LOGGED" 'NR > from && /^colorpicker-demo \(pid [0-9]+\): asked for / { sub(/\).*/, ""); print $3; exit }' "$SCHEMEBRIDGE_DEMO_LOG")
    [ -n "$HANDLER_PID" ] && break
    sleep 0.05
done
[ -n "$HANDLER_PID" ] || { echo "colorpicker-demo did not start" >&2; exit 1; }
handler_said
# Any process of the same user can read another's environment (or the handler may leak its
# token): the service also checks that a reply comes from the handler's process or a child of it.
STOLEN=$(tr '\0' '\n' < "/proc/$HANDLER_PID/environ" | sed -n 's/^SCHEMEBRIDGE_REPLY_TOKEN=//p')
echo "(the demo script, not a child of the handler, read SCHEMEBRIDGE_REPLY_TOKEN from /proc/$HANDLER_PID/environ: ${#STOLEN} hex digits)"
echo "$ SCHEMEBRIDGE_REPLY_TOKEN=<stolen> schemebridge reply color=black"
SCHEMEBRIDGE_REPLY_TOKEN="$STOLEN" status schemebridge reply color=black
echo "$ gdbus call --session --dest $NAME --object-path $OBJ --method $NAME.Reply <stolen> 0 \"{'color': <'black'>}\""
gdbus call --session --dest $NAME --object-path $OBJ --method $NAME.Reply "$STOLEN" 0 "{'color': <'black'>}" 2>&1 || true
echo "(now the user picks orange in the real picker)"
echo "orange" > "$SCHEMEBRIDGE_DEMO_PICK"
wait "$SKETCH_PID" && SKETCH_RC=0 || SKETCH_RC=$?
SKETCH_PID=""
echo "$ desktop/demo/sketch-demo 'pickcolor://choose?for=sketch'   (started before the forgery, in the background)"
cat "$WORK/sketch.out"
echo "exit status $SKETCH_RC"
handler_said

# ---- pasteboards ----------------------------------------------------------------------------
say "pasteboards (seed 001): person-editor (python3-dbus) creates a unique persistent pasteboard, writes a person and a photo, opens viewer://?ReadPasteboardData#<name> with the pasteboard option"
echo "$ desktop/demo/person-editor --first Jane --last Appleseed --born 1990-04-01"
EDITOR_OUT="$WORK/editor.out"
"$PWD/desktop/demo/person-editor" --first Jane --last Appleseed --born 1990-04-01 > "$EDITOR_OUT" 2>&1 && EDITOR_RC=0 || EDITOR_RC=$?
cat "$EDITOR_OUT"
echo "exit status $EDITOR_RC"
# The editor returns on Deleted, which the viewer's delete sends before the viewer logs it.
for _ in $(seq 100); do grep -q "^person-viewer: deleted pasteboard" "$SCHEMEBRIDGE_DEMO_LOG" && break; sleep 0.05; done
echo "(person-viewer, the viewer: handler, is a shell script using schemebridge pasteboard types/read/delete:)"
handler_said
PB=$(sed -n 's/^person-editor: created persistent pasteboard //p' "$EDITOR_OUT")
say "afterwards the pasteboard is gone for everybody, and so is its storage under \$XDG_STATE_HOME/schemebridge"
echo "$ schemebridge pasteboard read $PB"
status schemebridge pasteboard read "$PB"
echo "$ gdbus call --session --dest $NAME --object-path $OBJ --method io.github.schemebridge.Pasteboards1.FindPasteboard $PB"
gdbus call --session --dest $NAME --object-path $OBJ --method io.github.schemebridge.Pasteboards1.FindPasteboard "$PB" 2>&1 || true
echo "$ ls -A \$XDG_STATE_HOME/schemebridge/pasteboards"
ls -A "$XDG_STATE_HOME/schemebridge/pasteboards" 2>/dev/null || true
echo "(empty)"

# ---- documents ------------------------------------------------------------------------------
say "documents (seed 000): a Markdown file goes to the app for its type, opened in place as xdg-open does; --copy hands it a read-only copy in its Inbox"
NOTES="$WORK/shopping list.md"
printf '# Shopping list\n- milk\n- bread\n' > "$NOTES"
echo "$ schemebridge type '$NOTES'"
schemebridge type "$NOTES"
echo "$ schemebridge handlers --type text/markdown"
schemebridge handlers --type text/markdown
echo "$ schemebridge open --json '$NOTES'"
status schemebridge open --json "$NOTES"
for _ in $(seq 100); do grep -q "^notes-viewer: done reading" "$SCHEMEBRIDGE_DEMO_LOG" && break; sleep 0.05; done
handler_said
echo "(in place: the viewer was handed your file itself, as xdg-open does)"
echo "$ schemebridge open --copy --json '$NOTES'"
status schemebridge open --copy --json "$NOTES"
for _ in $(seq 100); do [ "$(grep -c "^notes-viewer: done reading" "$SCHEMEBRIDGE_DEMO_LOG")" -ge 2 ] && break; sleep 0.05; done
handler_said
echo "$ ls -l \$XDG_DATA_HOME/schemebridge/inbox/org.example.NotesViewer"
ls -l "$XDG_DATA_HOME/schemebridge/inbox/org.example.NotesViewer"
say "a file nobody opens, and one that does not exist: real errors and xdg-open's exit statuses"
printf 'x' > "$WORK/data.unknownext"
echo "$ schemebridge open --handler org.example.NotesViewer.desktop '$WORK/data.unknownext'"
status schemebridge open --handler org.example.NotesViewer.desktop "$WORK/data.unknownext"
echo "$ schemebridge open /nonexistent/notes.md"
status schemebridge open /nonexistent/notes.md

# ---- picking (issue 25) ---------------------------------------------------------------------
# A provider and a picker of their own (desktop/demo/scanner-demo, editor-demo), installed here.
pick_demo() {
    for app in org.example.Scanner; do
        sed "s|@demodir@|$PWD/desktop/demo|" "desktop/demo/$app.desktop.in" > "$XDG_DATA_HOME/applications/$app.desktop"
    done
    say "picking (seed 004's document picker): the Scanner declares X-SchemeBridge-Provides=image/png; and keeps two scans in its own storage; the Editor picks one"
    sleep 1   # the new entries are read live (inotify), without a restart: a moment
    echo "$ desktop/demo/editor-demo org.example.Scanner.desktop   # PickDocument(['image/png'], {provider}) and its Response"
    status "$PWD/desktop/demo/editor-demo" org.example.Scanner.desktop
    handler_said
    echo "$ schemebridge pick --type image/png --provider org.example.Scanner.desktop --output \$WORK/picked"
    mkdir -p "$WORK/picked"
    status schemebridge pick --type image/png --provider org.example.Scanner.desktop --output "$WORK/picked"
    handler_said
    echo "$ file \$WORK/picked/*"
    file "$WORK"/picked/* 2>/dev/null || ls -l "$WORK/picked"
    [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || return 0
    say "the picker: with no provider named, the user chooses where the document comes from"
    echo "$ desktop/demo/editor-demo   # PickDocument(['image/png'], {'title': 'Insert a scan'})"
    "$PWD/desktop/demo/editor-demo" > "$WORK/editor.out" 2>&1 &
    local pid=$!
    if [ -n "$SHARE_PRIVATE_DISPLAY" ]; then
        demo_window '^Insert a scan' picker
        if [ -n "$DEMO_WIN" ]; then
            echo "the picker \"$(xdotool getwindowname "$DEMO_WIN")\" was drawn on the private Xvfb and saved (its path is listed at the end)"
            echo "(the demo is the user: Home and Return take the first source, the Scanner)"
            xdotool windowfocus --sync "$DEMO_WIN" 2> /dev/null
            xdotool key Home Return
        else
            echo "(the picker did not come up on $DISPLAY)"
        fi
    else
        echo "(choose the Scanner in the picker on your display ${DISPLAY:-$WAYLAND_DISPLAY}, or press Escape to cancel)"
    fi
    wait "$pid" && rc=0 || rc=$?
    cat "$WORK/editor.out"
    echo "exit status $rc"
    handler_said
    # On the private display the demo was the user and chose the Scanner: anything else is a failure.
    if [ -n "$SHARE_PRIVATE_DISPLAY" ] && [ "$rc" -ne 0 ]; then demo_failed "the pick through the picker ended with $rc"; fi
}
pick_demo
share_demo

if [ -n "$SHARE_PRIVATE_DISPLAY" ] && [ ${#DEMO_SAVED[@]} -ne 2 ]; then
    demo_failed "the sheet and the picker should have been saved as two pictures; saved: ${DEMO_SAVED[*]:-none}"
fi
if [ ${#DEMO_SAVED[@]} -gt 0 ]; then
    say "what the demo drew on its private display, saved as pictures:"
    printf '    %s\n' "${DEMO_SAVED[@]}"
fi
say "done: the private bus and the service stop now"

# Sourced by scripts/demo.sh (`make run`): seed 000's share flow (issue 23). Two functions:
#   share_demo_display  before the bus starts: without a display, a private Xvfb (the service, bus
#                       activated, draws its sheet there), so the sheet can be shown and saved;
#                       on your own display ($DISPLAY, or $WAYLAND_DISPLAY alone) it is shown there
#   demo_window TITLE-REGEX NAME   waits for a window on the private display, saves it as a PNG
#                       (scripts/x11-screenshot.py), records its path for the demo's end
#   share_demo          the flow: the Photos demo app shares a photo and a line of text through
#                       Share1; the sheet lists the two targets that take both (Postcard,
#                       Scrapbook), not Memo (text only); the chosen one gets the photo in its
#                       Inbox and the text through its pasteboard, and replies; Photos prints the
#                       Response. On the private Xvfb the demo is the user: it saves a screenshot
#                       of the sheet, prints where, and presses Return (the first target).
# Uses demo.sh's WORK, PATH, say, show, status, handler_said, NAME and OBJ.

SHARE_XVFB_PID=""
SHARE_PRIVATE_DISPLAY=""
# Where the demo saves what it drew on the private display, and what it saved there.
DEMO_SHOTS="${SCHEMEBRIDGE_DEMO_SCREENSHOTS:-$PWD/.build/demo}"
DEMO_SAVED=()

share_demo_display() {
    # The shipped dialog, found on PATH by the service as if installed beside it.
    mkdir -p "$WORK/scripts"
    ln -s "$PWD/scripts/schemebridge-dialog" "$WORK/scripts/"
    export PATH="$WORK/scripts:$PATH"
    # Your own display: the sheet and the picker come up there for you to use.
    if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
        echo "(your display ${DISPLAY:-$WAYLAND_DISPLAY}: the share sheet and the picker will come up there for you)"
        return 0
    fi
    command -v Xvfb > /dev/null 2>&1 || { echo "(no DISPLAY and no Xvfb: the share sheet cannot be drawn; apt-get install xvfb)"; return 0; }
    exec 4> >(cat > "$WORK/xvfb.display")
    Xvfb -displayfd 4 -screen 0 1024x768x24 -nolisten tcp -br -noreset 2> "$WORK/xvfb.log" &
    SHARE_XVFB_PID=$!
    exec 4>&-
    for _ in $(seq 300); do [ -s "$WORK/xvfb.display" ] && break; sleep 0.1; done
    if [ -s "$WORK/xvfb.display" ]; then
        DISPLAY=":$(head -n1 "$WORK/xvfb.display")"
        SHARE_PRIVATE_DISPLAY=$DISPLAY
        export DISPLAY WAYLAND_DISPLAY=
        echo "(no DISPLAY here: a private Xvfb on $DISPLAY draws the share sheet)"
    fi
}

# demo_window TITLE-REGEX NAME: DEMO_WIN becomes the id of the first visible window whose title
# matches (empty: none came), saved once drawn as $DEMO_SHOTS/schemebridge-NAME.png.
DEMO_WIN=""
demo_window() {
    local win="" shot="$DEMO_SHOTS/schemebridge-$2.png"
    DEMO_WIN=""
    for _ in $(seq 300); do
        win=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n1) && [ -n "$win" ] && break
        sleep 0.1
    done
    [ -n "$win" ] || return 0
    # Its first frame: GTK and zenity draw right after mapping.
    sleep 0.7
    mkdir -p "$DEMO_SHOTS"
    if "$PWD/scripts/x11-screenshot.py" "$shot" "$win" >&2; then
        DEMO_SAVED+=("$shot  ($2: \"$(xdotool getwindowname "$win" 2>/dev/null)\")")
    fi
    DEMO_WIN=$win
}

share_demo_stop() {
    [ -n "$SHARE_XVFB_PID" ] && kill "$SHARE_XVFB_PID" 2>/dev/null || true
}

share_demo() {
    say "sharing (seed 000): three share targets declare what they take in their own desktop entries"
    local app
    for app in org.example.Photos org.example.Postcard org.example.Scrapbook org.example.Memo; do
        sed "s|@demodir@|$PWD/desktop/demo|" "desktop/demo/$app.desktop.in" > "$XDG_DATA_HOME/applications/$app.desktop"
    done
    grep -H "X-SchemeBridge-Share-Types" "$XDG_DATA_HOME"/applications/org.example.{Postcard,Scrapbook,Memo}.desktop | sed "s|$XDG_DATA_HOME/applications/||"
    sleep 0.3  # the service sees new entries through inotify
    echo "$ schemebridge share --list image/png text/plain   # Share1.ShareTargets: the targets that take both"
    schemebridge share --list image/png text/plain | awk -F '\t' 'BEGIN { printf "    %-40s %-28s %s\n", "ID", "NAME", "KIND" } { printf "    %-40s %-28s %s\n", $1, $2, $4 }'

    local photo="$WORK/beach.png" out="$WORK/photos.out" rc
    cp "$(ls desktop/demo/launch-images/*/*.png | head -n1)" "$photo"
    say "Photos shares a photo and a line of text; the sheet lists the targets that take both"
    if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        echo "(no display: the sheet cannot be shown; sharing straight to org.example.Postcard.desktop:share instead)"
        echo "$ desktop/demo/photos-demo beach.png 'Greetings from the beach' org.example.Postcard.desktop:share"
        "$PWD/desktop/demo/photos-demo" "$photo" "Greetings from the beach" org.example.Postcard.desktop:share > "$out" 2>&1 && rc=0 || rc=$?
    else
        echo "$ desktop/demo/photos-demo beach.png 'Greetings from the beach'"
        "$PWD/desktop/demo/photos-demo" "$photo" "Greetings from the beach" > "$out" 2>&1 &
        local pid=$!
        if [ -n "$SHARE_PRIVATE_DISPLAY" ]; then
            demo_window '^Share from ' share-sheet
            local win=$DEMO_WIN
            if [ -n "$win" ]; then
                echo "the share sheet \"$(xdotool getwindowname "$win")\" was drawn on the private Xvfb and saved (its path is listed at the end)"
                echo "(the demo is the user: Return shares with the first target)"
                xdotool windowfocus --sync "$win" 2> /dev/null
                xdotool key Return
            else
                echo "(the sheet did not come up on $DISPLAY)"
            fi
        else
            echo "(pick a target in the sheet on your display ${DISPLAY:-$WAYLAND_DISPLAY}, or press Escape to cancel)"
        fi
        wait "$pid" && rc=0 || rc=$?
    fi
    cat "$out"
    echo "exit status $rc"
    for _ in $(seq 100); do grep -q "^share-target-demo .*replying" "$SCHEMEBRIDGE_DEMO_LOG" && break; sleep 0.05; done
    handler_said
    # Shared straight to a target, or on the private display where the demo was the user: it must have worked.
    if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ -n "$SHARE_PRIVATE_DISPLAY" ]; then
        [ "$rc" -eq 0 ] || demo_failed "the share ended with $rc"
    fi
    share_demo_stop
}

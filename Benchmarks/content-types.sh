#!/bin/bash
# Content-type detection (issue 15): median time per file, SchemeBridgeCore's ContentTypeDatabase
# next to `gio info -a standard::content-type` and `file --mime-type`, measured in the same run,
# interleaved round by round (Benchmarks/ContentTypeBench). make bench runs it with the binary it
# built; alone:  bash Benchmarks/content-types.sh [PATH/TO/ContentTypeBench]
# Results: printed, Benchmarks/results/content-types.json, and the content-types table in
# docs/PERFORMANCE.md. Knobs: CT_FILES, CT_ROUNDS, CT_BATCH, CT_SINGLE (see ContentTypeBench).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Benchmarks/results
mkdir -p "$OUT"
BIN="${1:-}"
if [ -z "$BIN" ]; then
    sh scripts/deps.sh test file
    # The release build make bench makes (Swift runtime static), in its own build directory.
    BUILD=(swift build -c release --static-swift-stdlib --scratch-path .build-static)
    "${BUILD[@]}" --product ContentTypeBench >/dev/null
    BIN="$("${BUILD[@]}" --show-bin-path)/ContentTypeBench"
fi
EMPTY="$(mktemp -d /tmp/contenttype-home.XXXXXX)"
trap 'rm -rf "$EMPTY"' EXIT
echo "==> content types: median detection time per file, ours / gio info / file --mime-type (interleaved)"
# The installed database only (an empty data home), as the agreement test uses it.
env XDG_DATA_HOME="$EMPTY" XDG_DATA_DIRS=/usr/local/share:/usr/share "$BIN" bench "$OUT/content-types.json"
/usr/bin/python3 Benchmarks/report-content-types.py "$OUT/content-types.json" docs/PERFORMANCE.md

#!/bin/bash
# make fuzz: build the libFuzzer targets with ASan and run each for FUZZ_SECONDS (default 180)
# over its corpus in Fuzz/corpus/<name>; new interesting inputs are added to the corpus, and
# crashes are written to Fuzz/crashes/. `make test` replays the committed corpus.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${FUZZ_SECONDS:-180}"
swift build -c debug -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -vE "Cannot export local symbol" | tail -3
BIN="$(swift build --show-bin-path)"
mkdir -p crashes
status=0
for name in url keyfile exec; do
    case $name in url) exe=FuzzURL;; keyfile) exe=FuzzKeyFile;; exec) exe=FuzzExec;; esac
    echo "==> $exe for ${SECONDS_EACH}s (corpus: Fuzz/corpus/$name)"
    if ! "$BIN/$exe" -max_total_time="$SECONDS_EACH" -max_len=70000 -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix=crashes/$name- -print_final_stats=1 "corpus/$name" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|Done)"; then
        status=1
    fi
    [ -n "$(ls crashes/$name-* 2>/dev/null)" ] && { echo "crash found: $(ls crashes/$name-*)"; status=1; }
done
exit $status

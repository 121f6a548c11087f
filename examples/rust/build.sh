#!/bin/sh
# build.sh [OUT]: builds OUT/open-url-rust (OUT defaults to this directory) offline against
# Debian's Rust crates (cargo, rustc, librust-zbus-dev in /usr/share/cargo/registry). The crate
# is copied into a temporary directory with its own CARGO_HOME, whose config.toml replaces
# crates.io by that registry: nothing is fetched, and neither ~/.cargo nor this directory is
# written (no Cargo.lock, no target/ here). CARGO_TARGET_DIR, when set, keeps the compiled crates
# between builds (the tests point it into .build); PROFILE=release builds optimised (default: debug,
# which compiles zbus and its crates in about half the time, and here without debug information
# nor incremental state: 75 s of CPU instead of 140 s; set CARGO_PROFILE_DEV_DEBUG=2 to have it).
set -eu
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$(mkdir -p "${1:-$SRC}" && cd "${1:-$SRC}" && pwd)
REGISTRY=${DEBIAN_CARGO_REGISTRY:-/usr/share/cargo/registry}
[ -d "$REGISTRY" ] || { echo "build.sh: no $REGISTRY (apt-get install librust-zbus-dev cargo rustc)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/cargo-home" "$WORK/crate"
cp -R "$SRC/Cargo.toml" "$SRC/src" "$WORK/crate/"
cat > "$WORK/cargo-home/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$REGISTRY"

[net]
offline = true
TOML
# Debian's cargo and rustc (a rustup in PATH would want a toolchain of its own).
TARGET=${CARGO_TARGET_DIR:-$WORK/target}
mkdir -p "$TARGET"
if [ "${PROFILE:-debug}" = release ]; then PROFILE=release; set -- --release; else PROFILE=debug; set --; fi
CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-0} CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0} \
CARGO_HOME="$WORK/cargo-home" RUSTC="${RUSTC:-/usr/bin/rustc}" "${CARGO:-/usr/bin/cargo}" build "$@" --offline --quiet \
    --manifest-path "$WORK/crate/Cargo.toml" --target-dir "$TARGET"
cp "$TARGET/$PROFILE/open-url-rust" "$OUT/open-url-rust"

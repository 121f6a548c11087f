import CLinux

/// The code a service's D-Bus loop runs for a message, kept near the processor: its functions
/// (listed from a profile by `scripts/link/hot-code.sh`) found once in the program's own symbol
/// table, then asked of the caches each time the loop wakes (prefetches: nothing waits for them).
/// Between two messages other programs run on the same cores; without this, a device share's path
/// ran from memory, at 5-40 times its cost from the caches (docs/PERFORMANCE.md, session 14).
public enum HotCode {
    /// Finds the listed code, on a thread of its own (the symbol table's read takes tens of
    /// milliseconds); until then, and in a program without a symbol table, ``prefetch()`` does nothing.
    public static func load() {
        OSThread.detached(name: "hot-code") { _ = clinux_hot_code_load() }
    }

    /// Asks the caches for the code ``load()`` found (a few µs to issue, none to wait for) when
    /// the loop was idle for half a millisecond or more since it last asked (other programs ran);
    /// a wake right after another finds the code still cached and skips it. The loop's thread only.
    @inlinable
    public static func prefetch() { clinux_hot_code_prefetch() }
}

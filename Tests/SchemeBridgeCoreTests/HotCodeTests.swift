import CLinux
import Testing
@testable import LinuxSystem

/// The loop's code kept near the processor (``HotCode``): the listed functions found in this
/// program's own symbol table, once.
@Suite struct HotCodeTests {
    @Test func theListedFunctionsAreFoundInTheProgramsSymbolTableOnce() {
        // This test program links the listed LinuxSystem and DBus functions (and libdbus's) too.
        #expect(clinux_hot_code_listed() > 100, "the list from the profile")
        let found = clinux_hot_code_load()
        #expect(found > 0, "lines of the listed functions found in /proc/self/exe's symbol table: \(found)")
        #expect(clinux_hot_code_load() == 0, "found once; a second load keeps what the first found")
        HotCode.prefetch()  // the kept lines asked of the caches: prefetches of mapped code, nothing to wait for
    }
}

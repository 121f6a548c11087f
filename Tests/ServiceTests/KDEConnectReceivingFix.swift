import DBusTestSupport
import Foundation
import Glibc

/// KDE Connect 23.08's receiving fix (upstream 2c2e883) for Debian's `kdeconnectd` 22.12, as a
/// library the engine is started with (`LD_PRELOAD`): `Engines/kdeconnectd-receiving-fix.cpp`
/// says what it replaces and why. The device tests whose subject is SchemeBridge's sending — not
/// the receiving engine's known stall (docs/GUIDE.md, "When a file does not arrive") — give their
/// receiving engine this fix.
enum KDEConnectReceivingFix {
    static let source = Built.packageRoot.appendingPathComponent("Tests/ServiceTests/Engines/kdeconnectd-receiving-fix.cpp")
    static let library = Built.packageRoot.appendingPathComponent(".build/engines/kdeconnectd-receiving-fix.so")

    /// What the library writes to the engine's stderr when the engine makes its store (its first
    /// received file): the sign that the engine a test started really uses it.
    static let logLine = "sb-receiving-fix: files are stored through a plain QNetworkAccessManager"

    /// The library's path, built first when it is missing or older than its source (g++ and
    /// qtbase5-dev: scripts/deps.sh). Suites building at once each write a file of their own
    /// and rename it into place.
    static func built() async throws -> String {
        let fm = FileManager.default
        func modified(_ url: URL) -> Date? { (try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date }
        if let made = modified(library), let written = modified(source), made >= written { return library.path }
        try fm.createDirectory(at: library.deletingLastPathComponent(), withIntermediateDirectories: true)
        let flags = try await Tools.run(["pkg-config", "--cflags", "--libs", "Qt5Network"])
        guard flags.succeeded else { throw ToolError("pkg-config Qt5Network: \(flags.stderr) (install qtbase5-dev: scripts/deps.sh)") }
        let partial = library.path + ".\(getpid()).\(UUID().uuidString.prefix(6))"
        let compile = try await Tools.run(["g++", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", partial, source.path]
                                          + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        guard compile.succeeded else {
            try? fm.removeItem(atPath: partial)
            throw ToolError("building \(source.lastPathComponent) failed: \(compile.stdout)\(compile.stderr)")
        }
        guard rename(partial, library.path) == 0 else { throw ToolError("rename to \(library.path): errno \(errno)") }
        return library.path
    }
}

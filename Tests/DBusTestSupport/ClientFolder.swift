import Foundation

/// A folder of test programs kept as files in the package (python3-dbus clients, scripts),
/// beside the tests that run them and excluded from their target in Package.swift; found
/// through ``Built/packageRoot``, so they run from the source tree wherever the package is.
public struct ClientFolder: Sendable {
    /// The folder.
    public let url: URL

    /// The folder `relativePath` (e.g. `Tests/DBusTests/Clients`) in the package.
    public init(_ relativePath: String) {
        url = Built.packageRoot.appendingPathComponent(relativePath)
    }

    /// The python file `name` (a path below the folder without `.py`, e.g. `Reply/caller`).
    public func path(_ name: String) -> String { file(name + ".py") }

    /// The file `name` (a path below the folder with its extension, e.g. `CLI/complete.sh`).
    public func file(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// The command line that runs python file `name` with `arguments` under Debian's python3.
    public func command(_ name: String, _ arguments: [String]) -> [String] {
        [Tools.systemPython, path(name)] + arguments
    }
}

// schemebridge-open-probe URL...: the work `schemebridge open URL` must do — connect to the
// session bus through our D-Bus layer, call OpenURL for each URL, exit 0/2/3/4 like xdg-open —
// with nothing else: no swift-argument-parser (which loads FoundationEssentials), no Foundation.
// make bench times it as the floor a Swift CLI over this layer can reach, next to `gio open`.
import DBus
#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard error (fd 2; no shared FILE*).
func complain(_ text: String) {
    let line = "schemebridge-open-probe: " + text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

let urls = CommandLine.arguments.dropFirst()
if urls.isEmpty {
    complain("usage: schemebridge-open-probe URL...")
    exit(1)
}
var status: Int32 = 0
do {
    let connection = try await Connection.session()
    for url in urls {
        do {
            _ = try await connection.call(
                destination: "io.github.schemebridge.SchemeBridge1", path: "/io/github/schemebridge/SchemeBridge1",
                interface: "io.github.schemebridge.SchemeBridge1", member: "OpenURL", [.string(url)])
        } catch {
            complain(error.message)
            let name = error.name.rawValue
            status = name.hasSuffix(".NoHandler") || name.hasSuffix(".ServiceUnknown") ? 3 : name.hasSuffix(".InvalidURL") ? 1 : 4
        }
    }
    connection.close()
} catch {
    complain(error.message)
    status = 3
}
exit(status)

// schemebridge-open-probe URL...: the work `schemebridge open URL` must do — connect to the
// session bus through our D-Bus layer, call OpenURL for each URL, exit 0/2/3/4 like xdg-open —
// with nothing else: no swift-argument-parser (which loads FoundationEssentials), no Foundation.
// make bench times it as the floor a Swift CLI over this layer can reach, next to `gio open`.
import DBus
import Glibc
import SchemeBridgeContract

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
    let service = SchemeBridgeClient(connection: connection)
    for url in urls {
        do {
            _ = try await service.perform(.openURL(url))
        } catch {
            complain(error.message)
            switch error {
            case ContractError.noHandler, ErrorName.serviceUnknown: status = 3
            case ContractError.invalidURL: status = 1
            default: status = 4
            }
        }
    }
    connection.close()
} catch {
    complain(error.message)
    status = 3
}
exit(status)

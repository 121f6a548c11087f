import Foundation
import DBusTestSupport

/// The introspection XML in dbus/ (one file per interface) next to what the running service
/// reports: an interface element of each, without what only the shipped files carry (comments,
/// the gtk-doc text gdbus-codegen reads, and `org.gtk.GDBus.*` code-generator annotations).
enum ShippedInterface {
    /// The shipped file of `interface`: `dbus/<interface>.xml`.
    static func file(_ interface: String) throws -> String {
        try String(contentsOf: Built.packageRoot.appendingPathComponent("dbus/\(interface).xml"), encoding: .utf8)
    }

    /// The `<interface name="…">` element of `interface` in `text`, comments and code-generator
    /// annotations removed; nil when there is none.
    static func element(_ text: String, _ interface: String) -> String? {
        guard let start = text.range(of: "<interface name=\"\(interface)\">"),
              let end = text.range(of: "</interface>", range: start.upperBound..<text.endIndex) else { return nil }
        let uncommented = String(text[start.lowerBound..<end.upperBound])
            .replacingOccurrences(of: "(?s)<!--.*?-->", with: "", options: .regularExpression)
        return uncommented.split(separator: "\n")
            .filter { !$0.contains("\"org.gtk.GDBus.") && !$0.allSatisfy(\.isWhitespace) }
            .joined(separator: "\n")
    }
}

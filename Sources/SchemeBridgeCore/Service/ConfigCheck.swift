/// `schemebridged --check-config`: the config files read as the service reads them (the same
/// files, the same parser), and what the service would log about them.
public struct ConfigCheck: Sendable {
    /// The text for stdout: one warning a line, then a summary line naming the files read.
    public let report: String
    /// 0 when there is nothing to warn about, 1 otherwise.
    public let status: Int32

    /// Reads the config files `environment`'s XDG folders name.
    public init(environment: [String: String]) {
        let paths = PolicyStore.defaultPaths(directories: XDGDirectories(environment: environment))
        let reading = PolicyConfig.read(paths)
        var text = reading.warnings.map { $0 + "\n" }.joined()
        let files = reading.present.isEmpty ? "no config file (looked for \(paths.reversed().joined(separator: ", ")))"
                                            : reading.present.reversed().joined(separator: ", ")
        switch reading.warnings.count {
        case 0: text += "no warnings: \(files)\n"
        case 1: text += "1 warning: \(files)\n"
        case let n: text += "\(n) warnings: \(files)\n"
        }
        report = text
        status = reading.warnings.isEmpty ? 0 : 1
    }
}

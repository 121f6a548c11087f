import ArgumentParser
import Glibc

/// `schemebridge config check`: what the service would warn about in its config files. The check
/// is the service's own code (`schemebridged --check-config`, run in this process's place), so it
/// reads the same files with the same parser and cannot disagree with it.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the service's config files.",
        subcommands: [Check.self])

    /// `schemebridge config check`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what the service would warn about in its config files (exit 1 when there is something).",
            discussion: """
                Reads $XDG_CONFIG_DIRS/schemebridge/config (system-wide) and $XDG_CONFIG_HOME/schemebridge/config \
                (the user's, whose keys win) as the service does, and prints each unknown group or key, value out \
                of range or malformed line, one a line, then a summary naming the files read. The service logs the \
                same warnings, where plain bus activation often sends them nowhere.
                """)

        func run() throws {
            guard let daemon = Self.daemonPath() else {
                Terminal.error("cannot find schemebridged (next to this program or on PATH) to check the config with")
                throw ExitStatus.noHandler.exitCode
            }
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(daemon), strdup("--check-config"), nil]
            execv(daemon, argv)
            Terminal.error("cannot run \(daemon): \(String(cString: strerror(errno)))")
            throw ExitStatus.failed.exitCode
        }

        /// `schemebridged` in this program's directory (the two are installed together), else on `PATH`.
        static func daemonPath() -> String? {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            var candidates: [String] = []
            if n > 0 {
                let own = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if let slash = own.lastIndex(of: "/") { candidates.append(own[..<slash] + "/schemebridged") }
            }
            for dir in (Terminal.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where dir.hasPrefix("/") {
                candidates.append(dir + "/schemebridged")
            }
            return candidates.first { access($0, X_OK) == 0 }
        }
    }
}

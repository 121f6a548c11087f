import Glibc
import SchemeBridgeCLIKit

/// The full command line (`schemebridge-cli`, every subcommand and option), installed beside
/// the lean entry point.
enum FullCommandLine {
    /// Its file name.
    static let programName = "schemebridge-cli"

    /// Its path: beside this program's own file (`/proc/self/exe`), as `make install` and
    /// `swift build` put both.
    static func path() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return programName }
        let own = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return programName }
        return String(own[...slash]) + programName
    }

    /// Replaces this process with the full command line, passing the arguments as received
    /// (bytes, not decoded). Returns only when that fails, by exiting with status 4.
    static func exec() -> Never {
        let target = path()
        execv(target, CommandLine.unsafeArgv)
        let reason = String(cString: strerror(errno))
        Terminal.error("cannot run \(target): \(reason) (reinstall SchemeBridge: `make install` puts it beside schemebridge)")
        exit(ExitStatus.failed.rawValue)
    }
}

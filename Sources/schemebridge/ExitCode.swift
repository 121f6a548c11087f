import ArgumentParser
import SchemeBridgeCLIKit

extension ExitStatus {
    /// The status as the argument parser's exit code, to throw from a subcommand.
    var exitCode: ExitCode { ExitCode(rawValue) }
}

/// The release of SchemeBridge these programs belong to (CHANGELOG.md), in one place: the CLI and
/// the service print it for `--version`, the Makefile reads it for the man pages.
///
/// Releases are numbered `MAJOR.MINOR.PATCH`: `MAJOR` is the contract version the release serves
/// (``Contract/version``; a new contract version is a new major release, additive as the contract
/// is), `MINOR` counts releases with new features but the same contract, `PATCH` fixes only. A
/// version still being worked on carries `-dev` (a Debian package spells it `~dev`).
public enum Release {
    /// The release, e.g. `3.0.0-dev`.
    public static let version = "3.0.0-dev"

    /// What `PROGRAM --version` prints: the release, then the contract version it speaks.
    public static func versionText(program: String) -> String {
        "\(program) \(version)\nD-Bus contract version \(Contract.version) (\(Contract.busName))"
    }
}

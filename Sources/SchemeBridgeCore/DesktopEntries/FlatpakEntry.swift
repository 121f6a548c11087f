/// Desktop entries that Flatpak exports for its apps: `X-Flatpak=APPID` and an `Exec` such as
/// `/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=app --file-forwarding APPID @@u %U @@`
/// (`@@u … @@`: flatpak puts the files and `file:` URLs between the markers into the document
/// portal and grants the app read *and write* before it starts).
extension DesktopEntry {
    /// The Flatpak app this entry starts: its `X-Flatpak=` id, when that is a valid app id and
    /// its `Exec` runs `flatpak run` with that same id (an entry merely claiming the key names no
    /// app: documents are granted to the id only when the entry really starts it); else nil.
    public var flatpakAppID: AppID? {
        guard let text = extensionKeys["X-Flatpak"], let id = AppID(text), let command = execCommand else { return nil }
        let words = command.literalArguments
        guard command.program == "flatpak" || command.program.hasSuffix("/flatpak"),
              words.first == "run", words.contains(text) else { return nil }
        return id
    }

    /// The processes to spawn to open `urls` — document portal paths already granted to the
    /// app — without flatpak's own file forwarding: `--file-forwarding` and the `@@`/`@@u`
    /// markers are left out, so flatpak passes the paths as they are instead of adding them to
    /// the portal again with write access. Only for a ``flatpakAppID`` entry; others as
    /// ``launchCommands(for:)``.
    public func launchCommandsWithoutFileForwarding(for urls: [SchemeURL]) -> [LaunchCommand] {
        guard flatpakAppID != nil, let command = execCommand?.withoutFileForwarding() else { return launchCommands(for: urls) }
        let context = ExecContext(icon: icon, name: name, desktopFilePath: path)
        return command.argumentByteVectors(for: urls, context: context).map { LaunchCommand(arguments: $0, workingDirectory: workingDirectory) }
    }
}

extension ExecCommand {
    /// The arguments after the program that are plain words (no field code in them).
    var literalArguments: [String] {
        arguments.dropFirst().compactMap { arg in
            if case .pieces(let segments) = arg, segments.count == 1, case .text(let t) = segments[0] { return t }
            return nil
        }
    }

    /// This command without flatpak's `--file-forwarding` option and `@@`/`@@u` markers.
    func withoutFileForwarding() -> ExecCommand {
        let dropped: Set<String> = ["--file-forwarding", "@@", "@@u"]
        let kept = arguments.enumerated().filter { index, arg in
            guard index > 0, case .pieces(let segments) = arg, segments.count == 1, case .text(let t) = segments[0] else { return true }
            return !dropped.contains(t)
        }.map(\.element)
        return ExecCommand(arguments: kept, program: program)
    }

    init(arguments: [Argument], program: String) {
        self.arguments = arguments
        self.program = program
    }
}

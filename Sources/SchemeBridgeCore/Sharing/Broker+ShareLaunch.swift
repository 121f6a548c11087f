/// Starting a share's target: its plan (the action's `Exec` with the Inbox copies' URLs, or
/// `ActivateAction` for a `DBusActivatable` app; an "Open in" app's own `Exec`) admitted like
/// any launch (allowed callers, rate, launches in flight). No launch image: a share's target is
/// an app already on the desktop's mind, and the sheet was the feedback.
extension Broker {
    /// The admitted launch of `target` (an action of an app's entry, or "Open in <app>") with
    /// `files` (the `file://` URLs of the target's Inbox copies), for `caller`. `NoTarget` when
    /// the target is gone; `LaunchFailed` when it cannot be started (a terminal app without a
    /// terminal).
    /// `inDocumentPortal`: `files` are document portal paths granted to the target's Flatpak app
    /// (its exported `Exec` runs without flatpak's own file forwarding, as for `OpenFile`).
    public func admit(share target: ShareTargetID, files: [SchemeURL], caller: Caller, activationToken: String?,
                      searchPath: [String], inDocumentPortal: Bool = false) throws(OpenFailure) -> Admission {
        let plan = try sharePlan(target, files: files, searchPath: searchPath, inDocumentPortal: inDocumentPortal)
        return try admit(plan, LaunchRequest(caller: caller, activationToken: activationToken, launchImage: false),
                         sessionScale: 1, splashAvailable: false, config: policy.current)
    }

    private func sharePlan(_ target: ShareTargetID, files: [SchemeURL], searchPath: [String], inDocumentPortal: Bool) throws(OpenFailure) -> LaunchPlan {
        let targets = LaunchTargets.documents(files)
        let entry: DesktopEntry, commands: [LaunchCommand]
        switch target {
        case .action(let id, let name):
            guard let e = registry.entry(id: id), !router.routesBackToUs(e), let action = e.shareActions.first(where: { $0.action == name }) else {
                throw OpenFailure(.noTarget, "the share target \(target.text) is no longer installed")
            }
            if e.dbusActivatable {
                return LaunchPlan(targets: targets, entry: e, action: .activate(busName: e.busName, objectPath: e.objectPath),
                                  call: target.activation, purpose: .share)
            }
            guard var exec = action.execCommand else { throw OpenFailure(.launchFailed, "the share target \(target.text) has no Exec=") }
            if inDocumentPortal && e.flatpakAppID != nil { exec = exec.withoutFileForwarding() }
            entry = e
            commands = exec.argumentByteVectors(for: files, context: ExecContext(icon: action.icon ?? e.icon, name: action.name, desktopFilePath: e.path))
                .map { LaunchCommand(arguments: $0, workingDirectory: e.workingDirectory) }
        case .openIn(let id):
            guard let e = registry.entry(id: id), !router.routesBackToUs(e) else {
                throw OpenFailure(.noTarget, "\(id) is no longer installed")
            }
            if e.dbusActivatable {
                return LaunchPlan(targets: targets, entry: e, action: .activate(busName: e.busName, objectPath: e.objectPath),
                                  call: target.activation, purpose: .share)
            }
            entry = e
            commands = inDocumentPortal ? e.launchCommandsWithoutFileForwarding(for: files) : e.launchCommands(for: files)
        case .copy, .save, .device:
            throw OpenFailure(.invalidArgument, "\(target.text) is not launched")
        }
        guard !commands.isEmpty else { throw OpenFailure(.launchFailed, "\(entry.id) has no usable Exec=") }
        guard entry.terminal else { return LaunchPlan(targets: targets, entry: entry, action: .spawn(commands), purpose: .share) }
        guard let prefix = Terminals.prefix(searchPath: searchPath) else { throw OpenFailure(RouteError.noTerminal(desktopID: entry.id)) }
        return LaunchPlan(targets: targets, entry: entry, action: .spawn(commands.map { $0.prefixed(by: prefix) }), purpose: .share)
    }
}

/// Shares on the one pipeline: which targets accept a share's items (declared share actions and
/// the built-in activities), and the target decision with the same precedence as opening
/// (``decide(_:requested:ask:caller:)``): the `target` option > the caller's remembered share
/// target > the first `[Routes]` line for ``ShareTargetID/choiceSubject`` > the sheet. A
/// remembered or routed target counts only when it accepts the items now; `ask` shows the sheet
/// even then. Nothing accepts the items (or not the named target): `NoTarget`.
extension Broker {
    /// The most "Open in <app>" activities listed for one share.
    public static let maximumOpenIn = 32

    /// The targets that accept every item of `items` for `caller`, in the sheet's order: the
    /// apps' declared share actions (by desktop id), "Send to <device>" for each nearby device
    /// that can receive (by name), "Open in <app>" (files only; the apps whose
    /// `MimeType=` opens every file's type, the default first), "Copy" (one text, URL or image;
    /// when `tools` has a clipboard tool) and "Save to…" (one item; when `tools` has a file
    /// chooser). An app's entry counts only when it is eligible, not SchemeBridge itself, and
    /// its `X-SchemeBridge-AllowedCallers` admit `caller`.
    public func shareTargets(for items: [ShareItemSummary], caller: Caller, tools: ShareTools) -> [ShareTarget] {
        guard !items.isEmpty else { return [] }
        var types: [String] = []
        for item in items where !types.contains(item.type) { types.append(item.type) }
        let database = documents?.types
        _ = database?.reloadIfChanged()
        let isSubclass: (String, String) -> Bool = { type, pattern in
            database?.isSubclass(type, of: pattern) ?? (type == pattern || (pattern.hasSuffix("/*") && type.hasPrefix(pattern.dropLast())))
        }
        var targets: [ShareTarget] = []
        for entry in registry.shareEntries() where !router.routesBackToUs(entry) && Policy.allows(caller: caller.id, entry: entry) {
            for action in entry.shareActions where items.count <= (action.maxItems ?? Int.max) {
                guard types.allSatisfy({ SharePattern.matchesAny($0, action.types, isSubclass: isSubclass) }) else { continue }
                targets.append(ShareTarget(id: ShareTargetID.action(desktopID: entry.id, action: action.action).text, name: action.name,
                                           icon: action.icon ?? entry.icon ?? "", kind: .app))
            }
        }
        // A device takes any item: files as files, text as text, URLs as URLs, other data as a file.
        targets += NearbyDevice.shareTargets(tools.devices).map { ShareTarget(deviceTarget: $0) }
        if items.allSatisfy({ $0.kind == .file }) {
            targets += openInTargets(types: types, caller: caller)
        }
        if items.count == 1, let item = items.first {
            if tools.copy && (item.kind == .url || item.type.hasPrefix("text/") || item.type.hasPrefix("image/")) {
                targets.append(ShareTarget(id: ShareTargetID.copy.text, name: "Copy", icon: "edit-copy", kind: .builtin))
            }
            if tools.save {
                targets.append(ShareTarget(id: ShareTargetID.save.text, name: "Save to…", icon: "document-save-as", kind: .builtin))
            }
        }
        return targets
    }

    /// "Open in <app>" for the apps that open every one of `types` (along each type's parent
    /// chain, as `OpenFile` chooses), the first type's default first.
    private func openInTargets(types: [String], caller: Caller) -> [ShareTarget] {
        guard let first = types.first else { return [] }
        var ids = handlers(forType: first)
        for type in types.dropFirst() {
            let others = Set(handlers(forType: type))
            ids = ids.filter(others.contains)
        }
        return ids.prefix(Self.maximumOpenIn).compactMap { id in
            guard let entry = registry.entry(id: id), Policy.allows(caller: caller.id, entry: entry) else { return nil }
            return ShareTarget(id: ShareTargetID.openIn(desktopID: id).text, name: "Open in \(ShareAction.shown(entry.name ?? id.fileName))",
                               icon: entry.icon ?? "", kind: .builtin)
        }
    }

    /// The decision for a share (see the type's comment).
    /// A device named as the target is decided from the devices alone (it takes any item), the
    /// apps' targets left unlisted.
    func decide(share subject: ShareSubject, requested: String?, ask: Bool, caller: Caller) throws(OpenFailure) -> HandlerDecision {
        var what: String { ShareSubject.describe(subject.items) }  // for a refusal only
        if let requested {
            // A device's target is its id (no list of targets made for it: nothing but the devices is asked).
            let accepted = ShareTargetID.namesDevice(requested)
                ? !subject.items.isEmpty && subject.tools.devices.contains { $0.isShareTarget && ShareTargetID.device($0.id).text == requested }
                : shareTargets(for: subject.items, caller: caller, tools: subject.tools).contains { $0.id == requested }
            guard accepted else {
                throw OpenFailure(.noTarget, "the share target '\(requested.prefix(200))' does not accept \(what) (or is not installed, or does not accept this caller)")
            }
            return .open(ChooserTargetID(requested), .requested)
        }
        let targets = shareTargets(for: subject.items, caller: caller, tools: subject.tools)
        guard !targets.isEmpty else {
            throw OpenFailure(.noTarget, "nothing accepts \(what): declare a share target (a desktop action with \(ShareAction.typesKey)=) in an app's entry")
        }
        if !ask, let rememberingID = caller.rememberingID,
           let preferred = preferredHandler(subject: ShareTargetID.choiceSubject, caller: rememberingID, isUsable: { id in targets.contains { $0.id == id.text } }) {
            return .open(preferred.desktopID, HandlerReason(preferred.preference))
        }
        return .ask(HandlerQuestion(subject: ShareTargetID.choiceSubject, candidates: targets.map(\.candidate)))
    }
}

extension ShareTarget {
    /// "Send to <device>" for `device`.
    init(deviceTarget device: NearbyDevice) {
        self.init(id: ShareTargetID.device(device.id).text, name: device.sendTitle, icon: device.kind.icon, kind: .device)
    }
}

/// What a share is for, as the decision sees it: its items' kinds and types (never their data),
/// and what the service can do for the built-in activities.
public struct ShareSubject: Sendable, Equatable {
    public let items: [ShareItemSummary]
    public let tools: ShareTools

    public init(items: [ShareItemSummary], tools: ShareTools) {
        self.items = items
        self.tools = tools
    }

    /// The items' distinct types, in order.
    public var types: [String] {
        var out: [String] = []
        for item in items where !out.contains(item.type) { out.append(item.type) }
        return out
    }

    /// "2 items (image/png, text/plain)" for messages.
    static func describe(_ items: [ShareItemSummary]) -> String {
        var types: [String] = []
        for item in items where !types.contains(item.type) { types.append(item.type) }
        let shown = types.prefix(5).joined(separator: ", ") + (types.count > 5 ? ", …" : "")
        return items.count == 1 ? "one item of type \(shown)" : "\(items.count) items (\(shown))"
    }
}

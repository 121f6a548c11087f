import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's app-link methods (issue 41): `ResolveLink`, `AppLinks`, `VerifyLinkHost`,
/// `SetLinkApp`. Answers come from the core's ``AppLinks``; only `VerifyLinkHost` waits for the
/// network (on the verifier's thread), never an open.
extension MainInterface {
    static func appLinkMethods(_ service: AppLinkService, callers: Callers, broker: Broker) -> [Method] {
        [
            // Inline on the loop thread, as CanOpenURL: the answer is in memory (the records, the
            // entries' claims), its reply marshalled once; a fetch it asks for is queued.
            Method(ContractSignature.resolveLink, handler: .inlineEncoded { call in
                let r = service.links.resolve(try broker.validate(call.string(0)))
                service.links.linkNotHeld(r)
                return try service.encodedAnswer(r)
            }),
            Method(ContractSignature.appLinks, handler: .async { call in
                let rows = Self.appLinkRows(service.links)
                return [.array(element: .dictionary(key: .string, value: .variant), rows.map { .vardict($0) })]
            }),
            Method(ContractSignature.verifyLinkHost, handler: .async { call in
                [.vardict(Self.evidence(try await service.verifier.verify(named: call.string(0))))]
            }),
            Method(ContractSignature.setLinkApp, handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "choose the app for a host")
                let id = call.string(1)
                try service.links.select(id.isEmpty ? nil : DesktopID(id), for: call.string(0))
                return []
            }),
        ]
    }

    /// `ResolveLink`'s answer.
    static func linkAnswer(_ r: AppLinkResolution) -> DBusValue {
        typealias Key = AppLinkContract.Key
        return .vardict([Key.app: .string(r.app?.fileName ?? ""), Key.claimants: .strings(r.claimants.map(\.fileName)), Key.evidence: .vardict(r.record.map(evidence) ?? [:]),
                         Key.host: .string(r.host), Key.reason: .string(r.reason), Key.state: .string(r.state.rawValue)])
    }

    /// A record as `evidence`.
    static func evidence(_ r: AppLinkRecord) -> [String: DBusValue] {
        var d: [String: DBusValue] = [
            AppLinkContract.EvidenceKey.source: .string(r.source), AppLinkContract.EvidenceKey.address: .string(r.address),
            AppLinkContract.EvidenceKey.checked: .int64(r.checked), AppLinkContract.EvidenceKey.expires: .int64(r.expires),
            AppLinkContract.EvidenceKey.status: .uint32(UInt32(clamping: max(r.status, 0))), AppLinkContract.EvidenceKey.apps: .strings(r.apps),
        ]
        if let f = r.failure { d[AppLinkContract.EvidenceKey.failure] = .string(f) }
        if r.failure != nil, !r.apps.isEmpty { d[AppLinkContract.EvidenceKey.endorsedUntil] = .int64(r.endorsedUntil) }
        return d
    }

    /// `AppLinks`: one row per (app, declared host pattern) (``AppLinks/rows()``).
    static func appLinkRows(_ links: AppLinks) -> [[String: DBusValue]] {
        typealias Key = AppLinkContract.Key
        return links.rows().map { r in
            [Key.app: .string(r.app.fileName), Key.pattern: .string(r.pattern.description), Key.host: .string(r.host), Key.state: .string(r.state.rawValue),
             Key.trusted: .boolean(r.trusted), Key.paths: .strings(r.paths.map(\.description)), Key.evidence: .vardict(r.record.map(evidence) ?? [:])]
        }
    }
}

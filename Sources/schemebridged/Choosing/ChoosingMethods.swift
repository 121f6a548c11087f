import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's methods for choosing and integration (issue "choosing"): remembered
/// choices, the config's routes, and SchemeBridge as the desktop's handler of schemes.
extension MainInterface {
    static func choosingMethods(_ queries: CallerQueries) -> [Method] {
        let (broker, callers, integration) = (queries.broker, queries.callers, queries.integration)
        return [
            Method(ContractSignature.choices, handler: .async { call in
                [.array(element: .structure([.string, .string, .string]), await queries.choices(visibleTo: call.sender).map { RememberedChoice(caller: $0.caller.text, subject: $0.subject, desktopID: $0.desktopID.text).value })]
            }),
            Method(ContractSignature.forgetChoice, handler: .async { call in
                _ = try await broker.forgetChoice(caller: CallerID(checking: call.string(0)), subject: call.string(1), by: callers.caller(call.sender))
                return []
            }),
            Method(ContractSignature.routes, handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "read the user's routes")
                return [.array(element: .structure([.string, .string, .string]),
                        broker.policy.current.routes.map { RememberedChoice(caller: $0.callerPattern, subject: $0.subject, desktopID: $0.desktopID.text).value })]
            }),
            Method(ContractSignature.enableIntegration, handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "change the desktop's integration")
                return [.strings(try await integration.enable(call.strings(0)))]
            }),
            Method(ContractSignature.disableIntegration, handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "change the desktop's integration")
                return [.strings(try await integration.disable(call.strings(0)))]
            }),
            Method(ContractSignature.integrationStatus, handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "read the desktop's integration")
                let s = try await integration.status()
                return [.vardict(IntegrationReport(enabled: s.enabled, schemes: s.routed, changed: s.changed, notRouted: s.notRouted, list: s.list).dictionary)]
            }),
        ]
    }
}

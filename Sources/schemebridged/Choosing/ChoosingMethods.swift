import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The main interface's methods for choosing and integration (issue "choosing"): remembered
/// choices, the config's routes, and SchemeBridge as the desktop's handler of schemes.
extension MainInterface {
    static func choosingMethods(_ queries: Queries) -> [Method] {
        let (broker, callers, integration) = (queries.broker, queries.callers, queries.integration)
        let pairs = Argument("choices", "a(sss)")
        return [
            Method(ContractMethod.choices, outputs: [pairs], handler: .async { call in
                [.array(element: .structure([.string, .string, .string]), await queries.choices(visibleTo: call.sender).map(\.value))]
            }),
            Method(ContractMethod.forgetChoice, inputs: [Argument("caller", "s", maxBytes: nameLimit), Argument("scheme_or_type", "s", maxBytes: nameLimit)],
                   handler: .async { call in
                       try await queries.forgetChoice(caller: call.string(0), subject: call.string(1), sender: call.sender)
                       return []
                   }),
            Method(ContractMethod.routes, outputs: [Argument("routes", "a(sss)")], handler: .async { call in
                try await callers.refuseSandboxed(call.sender, "read the user's routes")
                return [.array(element: .structure([.string, .string, .string]),
                        broker.policy.current.routes.map { RememberedChoice(caller: $0.callerPattern, subject: $0.subject, desktopID: $0.desktopID).value })]
            }),
            Method(ContractMethod.enableIntegration, inputs: [Argument("schemes", "as")], outputs: [Argument("routed", "as")],
                   handler: .async { call in
                       try await callers.refuseSandboxed(call.sender, "change the desktop's integration")
                       return [.strings(try await integration.enable(call.arguments[0].arrayElements?.compactMap(\.string) ?? []))]
                   }),
            Method(ContractMethod.disableIntegration, inputs: [Argument("schemes", "as")], outputs: [Argument("given_back", "as")],
                   handler: .async { call in
                       try await callers.refuseSandboxed(call.sender, "change the desktop's integration")
                       return [.strings(try await integration.disable(call.arguments[0].arrayElements?.compactMap(\.string) ?? []))]
                   }),
            Method(ContractMethod.integrationStatus, outputs: [Argument("status", "a{sv}")],
                   handler: .async { call in
                       try await callers.refuseSandboxed(call.sender, "read the desktop's integration")
                       return [.vardict(try await integration.status().dictionary)]
                   }),
        ]
    }
}

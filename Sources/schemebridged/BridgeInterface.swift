import DBus
import SchemeBridgeCore

/// The declaration of `io.github.schemebridge.SchemeBridge1`: one value gives dispatch and
/// the introspection XML shipped in `dbus/`. Lookups run inline on the D-Bus loop thread
/// (in-memory probes); anything that launches, writes or calls out runs as a task.
struct BridgeInterface {
    let bridge: Bridge

    func declaration() -> Interface {
        let bridge = self.bridge
        return Interface(
            Contract.interface,
            methods: [
                Method("CanOpenURL", inputs: [Argument("url", "s")], outputs: [Argument("can_open", "b")],
                       handler: .inline { call in [.boolean(try bridge.canOpen(call.string(0), sender: call.sender))] }),
                Method("OpenURL", inputs: [Argument("url", "s")], outputs: [Argument("opened", "b")],
                       handler: .async { call in
                           _ = try await bridge.open(call.string(0), options: [:], sender: call.sender, method: "OpenURL")
                           return [.boolean(true)]
                       }),
                Method("OpenURLWithOptions", inputs: [Argument("url", "s"), Argument("options", "a{sv}")],
                       outputs: [Argument("results", "a{sv}")],
                       handler: .async { call in
                           let options = call.arguments[1].stringDictionary ?? [:]
                           let results = try await bridge.open(call.string(0), options: options, sender: call.sender, method: "OpenURLWithOptions")
                           return [.vardict(results)]
                       }),
                Method("HandlersForScheme", inputs: [Argument("scheme", "s")], outputs: [Argument("desktop_ids", "as")],
                       handler: .inline { call in [.strings(try bridge.handlers(forScheme: call.string(0)))] }),
                Method("DefaultHandler", inputs: [Argument("scheme", "s")], outputs: [Argument("desktop_id", "s")],
                       handler: .inline { call in [.string(try bridge.defaultHandler(forScheme: call.string(0)))] }),
                Method("SetDefaultHandler", inputs: [Argument("scheme", "s"), Argument("desktop_id", "s")],
                       handler: .async { call in
                           try bridge.setDefault(scheme: call.string(0), desktopID: call.string(1))
                           return []
                       }),
                Method("LaunchImageForURL", inputs: [Argument("url", "s")], outputs: [Argument("path", "s")],
                       handler: .inline { call in [.string(try bridge.launchImage(for: call.string(0)))] }),
            ],
            signals: [
                SignalDeclaration("URLHandled", arguments: [Argument("url", "s"), Argument("scheme", "s"), Argument("handler", "s"), Argument("details", "a{sv}")]),
                SignalDeclaration("URLFailed", arguments: [Argument("url", "s"), Argument("error_name", "s"), Argument("message", "s")]),
                SignalDeclaration("HandlersChanged", arguments: [Argument("schemes", "as")]),
            ],
            properties: [
                Property("Version", type: .uint32, emitsChanged: .const, get: { .uint32(Contract.version) }),
                Property("Schemes", type: .array(.string), get: { .strings(bridge.router.registry.schemes) }),
            ])
    }
}

import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// "Files…" through the desktop's file chooser portal when one runs
/// (`org.freedesktop.portal.Desktop` owned on the bus): `FileChooser.OpenFile` with the caller's
/// title, `multiple` and the asked types as a filter, and its `Request.Response` (0 with `uris`
/// picked, 1 cancelled, 2 ended otherwise). Nil when no portal runs or its `OpenFile` fails (the
/// shipped dialog then).
extension Picking {
    static let portalName: BusName = "org.freedesktop.portal.Desktop"

    func portalFiles(subject: PickSubject, options: PickOptions, timeout: Duration) async throws -> [String]? {
        guard (try? await BusDriver(connection).nameHasOwner(Self.portalName.rawValue, timeout: .seconds(5))) == true else { return nil }
        let token = "schemebridge_" + ReplyToken.make().prefix(16)
        let responses = try await connection.signals(matching: MatchRule(sender: Self.portalName, interface: "org.freedesktop.portal.Request",
                                                                           member: "Response"))
        let filter = DBusValue.structure([.string(subject.listed), .array(element: .structure([.uint32, .string]),
                                                                         subject.types.map { .structure([.uint32(1), .string($0.name)]) })])
        let portalOptions: [String: DBusValue] = [
            "handle_token": .string(token), "modal": .boolean(true), "multiple": .boolean(options.multiple),
            "filters": .array(element: filter.type, [filter]), "current_filter": filter,
        ]
        let reply: [DBusValue]
        do {
            reply = try await connection.call(destination: Self.portalName, path: "/org/freedesktop/portal/desktop",
                                              interface: "org.freedesktop.portal.FileChooser", member: "OpenFile",
                                              [.string(""), .string(options.title ?? "Choose a document"), .vardict(portalOptions)],
                                              timeout: .seconds(25))
        } catch {
            // A portal without a file chooser backend: the shipped dialog instead.
            logger.notice("the file chooser portal failed (\(error.name.rawValue): \(error.message)); using zenity")
            return nil
        }
        guard case .objectPath(let handle)? = reply.first else {
            throw DBusError(.failed, "the file chooser portal answered OpenFile without a request handle")
        }
        let answer = await Self.firstResponse(responses, at: handle, timeout: timeout)
        guard let (code, results) = answer else {
            _ = try? await connection.call(destination: Self.portalName, path: handle, interface: "org.freedesktop.portal.Request", member: "Close", [])
            throw ContractError.cancelled("the file chooser gave no answer in \(timeout.components.seconds) s and was closed")
        }
        guard code == 0 else { throw ContractError.cancelled(code == 1 ? "no file was chosen" : "the file chooser portal ended without a file") }
        let uris = (results["uris"]?.unwrapped.arrayElements ?? []).compactMap(\.string)
        let paths = uris.compactMap { (try? SchemeURL($0))?.localFilePath }
        guard !paths.isEmpty, paths.count == uris.count else {
            throw DBusError(.failed, "the file chooser portal chose something that is not a local file")
        }
        return paths
    }

    /// The first `Response(u, a{sv})` on `handle` in `stream`, or nil after `timeout`.
    private static func firstResponse(_ stream: AsyncStream<Message>, at handle: ObjectPath,
                                      timeout: Duration) async -> (UInt32, [String: DBusValue])? {
        await withTaskGroup(of: (UInt32, [String: DBusValue])?.self) { group in
            group.addTask {
                for await m in stream where m.path == handle {
                    let a = m.body
                    if a.count == 2, case .uint32(let code) = a[0], let results = a[1].stringDictionary { return (code, results) }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

import CDBus
import Glibc

private let introspectableInterface = InterfaceName(unchecked: "org.freedesktop.DBus.Introspectable")

/// A call's path, interface and member routed to a declared method, kept (``ConnectionCore/routes``)
/// so that the next call with the same names and signature is routed by comparing its C strings:
/// no names built from them, no tables looked up. Forgotten when the object at the path changes.
final class MethodRoute {
    /// How many routes a connection keeps (the last ones made).
    static let kept = 4
    let path: ObjectPath
    let interface: InterfaceName
    let member: MemberName
    let method: Method

    init(path: ObjectPath, interface: InterfaceName, member: MemberName, method: Method) {
        (self.path, self.interface, self.member, self.method) = (path, interface, member, method)
    }

    /// Whether a call with these (libdbus's) names and signature goes this way: the same names, and
    /// the signature the method declares (the check any call gets).
    func matches(path rawPath: UnsafePointer<CChar>, interface rawInterface: UnsafePointer<CChar>?,
                 member rawMember: UnsafePointer<CChar>, signature rawSignature: UnsafePointer<CChar>?) -> Bool {
        guard let rawInterface, let rawSignature else { return false }
        return CStringCalls.equal(rawMember, member.rawValue) && CStringCalls.equal(rawPath, path.rawValue)
            && CStringCalls.equal(rawInterface, interface.rawValue) && CStringCalls.equal(rawSignature, method.inputSignature)
    }
}

extension ConnectionCore {
    /// Routes one incoming method call to the exported object's declared method, or to
    /// the standard Introspectable/Properties implementations. Every call that expects a
    /// reply gets exactly one: a return, or an error. Loop thread only.
    func handleMethodCall(_ m: OpaquePointer) {
        let address = ReplyAddress(
            serial: dbus_message_get_serial(m),
            sender: dbus_message_get_sender(m).map { String(cString: $0) },
            noReply: dbus_message_get_no_reply(m) != 0)
        guard let rawPath = dbus_message_get_path(m), let rawMember = dbus_message_get_member(m) else {
            sendError(address, DBusError(.invalidArgs, "method call without a path or member"))
            return
        }
        let rawInterface = dbus_message_get_interface(m), rawSignature = dbus_message_get_signature(m)
        if let route = routes.first(where: { $0.matches(path: rawPath, interface: rawInterface, member: rawMember, signature: rawSignature) }) {
            dispatch(m, route.method, path: route.path, interface: route.interface, member: route.member, address)
            return
        }
        let path = ObjectPath(unchecked: String(cString: rawPath))
        let member = MemberName(unchecked: String(cString: rawMember))
        let interface = rawInterface.map { InterfaceName(unchecked: String(cString: $0)) }
        let signature = rawSignature.map { String(cString: $0) } ?? ""

        if interface == introspectableInterface || (interface == nil && member.rawValue == "Introspect") {
            guard member.rawValue == "Introspect" else {
                sendError(address, DBusError(.unknownMethod, "no method '\(member)' in interface 'org.freedesktop.DBus.Introspectable'"))
                return
            }
            guard signature.isEmpty else {
                sendError(address, DBusError(.invalidArgs, "Introspect takes no arguments, got '\(signature)'"))
                return
            }
            introspect(path, address)
            return
        }

        guard let object = objects[path] else {
            sendError(address, DBusError(.unknownObject, "no object at path '\(path)'"))
            return
        }

        if interface == InterfaceName.properties {
            handleProperties(object, member, m, signature, address)
            return
        }

        let method: Method
        let resolvedInterface: InterfaceName
        if let interface {
            guard let iface = object.interfaces[interface] else {
                sendError(address, DBusError(.unknownInterface, "object '\(path)' has no interface '\(interface)'"))
                return
            }
            guard let found = iface.method(member) else {
                sendError(address, DBusError(.unknownMethod, "no method '\(member)' in interface '\(interface)'"))
                return
            }
            method = found
            resolvedInterface = interface
        } else {
            // No interface given: the spec lets us pick; take the first (sorted) that has it.
            guard let iface = object.interfaces.values.sorted(by: { $0.name < $1.name }).first(where: { $0.method(member) != nil }) else {
                sendError(address, DBusError(.unknownMethod, "no method '\(member)' on object '\(path)'"))
                return
            }
            method = iface.method(member)!
            resolvedInterface = iface.name
        }

        guard signature == method.inputSignature else {
            sendError(address, DBusError(.invalidArgs, "\(resolvedInterface).\(member) takes arguments of type '\(method.inputSignature)', not '\(signature)'"))
            return
        }
        if interface != nil {
            if routes.count == MethodRoute.kept { routes.removeFirst() }
            routes.append(MethodRoute(path: path, interface: resolvedInterface, member: member, method: method))
        }
        dispatch(m, method, path: path, interface: resolvedInterface, member: member, address)
    }

    /// Decodes the call `m` to `method` (its signature checked) and runs its handler.
    private func dispatch(_ m: OpaquePointer, _ method: Method, path: ObjectPath, interface resolvedInterface: InterfaceName,
                          member: MemberName, _ address: ReplyAddress) {
        var call: MethodCall
        do {
            if let decode = method.decode {
                var reader = MessageReader(message: m, types: method.inputTypes, limits: method.inputLimits)
                call = MethodCall(sender: address.sender ?? "", path: path, interface: resolvedInterface, member: member, arguments: [])
                call.decoded = try decode(&reader)
            } else {
                let arguments = try Marshal.decodeBody(m, types: method.inputTypes, limits: method.inputLimits)
                call = MethodCall(sender: address.sender ?? "", path: path, interface: resolvedInterface, member: member, arguments: arguments)
            }
        } catch {
            sendError(address, error)
            return
        }

        switch method.handler {
        case .inline(let body):
            do {
                let out = try body(call)
                finishCall(method.outputTypes, call, out, address)
            } catch {
                sendError(address, DBusError.from(error))
            }
        case .inlineOrAsync(let inline, let body):
            do {
                if let out = try inline(call) {
                    finishCall(method.outputTypes, call, out, address)
                } else {
                    runAsync({ MethodResult(try await body($0)) }, method.outputTypes, call, address)
                }
            } catch {
                sendError(address, DBusError.from(error))
            }
        case .inlineEncoded(let body):
            do {
                let reply = try body(call)
                guard reply.types == method.outputTypes else {
                    logger.error("\(call.interface).\(call.member) returned '\(Signature(reply.types))' but declares '\(Signature(method.outputTypes))'")
                    sendError(address, DBusError(.failed, "internal error: \(call.interface).\(call.member) produced a reply of the wrong type"))
                    return
                }
                sendReply(address, encoded: reply)
            } catch {
                sendError(address, DBusError.from(error))
            }
        case .async(let body):
            runAsync({ MethodResult(try await body($0)) }, method.outputTypes, call, address)
        case .asyncThen(let body):
            runAsync(body, method.outputTypes, call, address)
        case .onLoop(let body):
            runAsync(body, method.outputTypes, call, address, onLoop: true)
        }
    }

    /// Runs an async handler in a task (`onLoop`: started at once on this thread, which it
    /// prefers) and replies on the loop thread when it is done (at once when it ends in a step
    /// of the loop's and nothing waits: ``perform(_:orElse:)``); the signals and work it left for
    /// after the reply (``ReplyBatch``) follow the reply in the same turn.
    private func runAsync(_ body: @escaping @Sendable (MethodCall) async throws -> MethodResult, _ outputTypes: [DBusType], _ call: MethodCall, _ address: ReplyAddress,
                          onLoop: Bool = false) {
        let batch = ReplyBatch(core: self)
        let run: @Sendable () async -> Void = {
            let result: Result<MethodResult, DBusError>
            do { result = .success(try await ReplyBatch.$current.withValue(batch) { try await body(call) }) } catch { result = .failure(DBusError.from(error)) }
            let after = batch.close()
            self.perform {
                switch result {
                case .success(let out):
                    self.finishCall(outputTypes, call, out.values, address)
                    ReplyBatch.run(after, core: self)
                    out.followUp?()
                case .failure(let e):
                    self.sendError(address, e)
                    ReplyBatch.run(after, core: self)
                }
            }
        }
        if onLoop { Task.immediate(executorPreference: executor, operation: run) } else { Task(operation: run) }
    }

    /// Checks a handler's result against the declaration (`outputTypes`), then replies.
    private func finishCall(_ outputTypes: [DBusType], _ call: MethodCall, _ out: [DBusValue], _ address: ReplyAddress) {
        guard out.count == outputTypes.count, zip(out, outputTypes).allSatisfy({ $0.type == $1 }) else {
            logger.error("\(call.interface).\(call.member) returned '\(Signature(out.map(\.type)))' but declares '\(Signature(outputTypes))'")
            sendError(address, DBusError(.failed, "internal error: \(call.interface).\(call.member) produced a reply of the wrong type"))
            return
        }
        sendReply(address, out)
    }

    /// Immediate child names of `path` among the exported objects.
    func children(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<Substring>()
        for p in objects.keys where p.rawValue.hasPrefix(prefix) && p != path {
            let rest = p.rawValue.dropFirst(prefix.count)
            if let first = rest.split(separator: "/").first { names.insert(first) }
        }
        return names.map(String.init).sorted()
    }

    private func introspect(_ path: ObjectPath, _ address: ReplyAddress) {
        let kids = children(of: path)
        if let object = objects[path] {
            sendReply(address, [.string(Introspection.document(interfaces: Array(object.interfaces.values), children: kids))])
        } else if !kids.isEmpty || path == .root {
            sendReply(address, [.string(Introspection.childrenOnly(kids))])
        } else {
            sendError(address, DBusError(.unknownObject, "no object at path '\(path)'"))
        }
    }

    // MARK: org.freedesktop.DBus.Properties

    private func handleProperties(_ object: ExportedObject, _ member: MemberName, _ m: OpaquePointer, _ signature: String, _ address: ReplyAddress) {
        let expected: String
        switch member.rawValue {
        case "Get": expected = "ss"
        case "GetAll": expected = "s"
        case "Set": expected = "ssv"
        default:
            sendError(address, DBusError(.unknownMethod, "no method '\(member)' in interface 'org.freedesktop.DBus.Properties'"))
            return
        }
        guard signature == expected else {
            sendError(address, DBusError(.invalidArgs, "org.freedesktop.DBus.Properties.\(member) takes '\(expected)', not '\(signature)'"))
            return
        }
        let args: [DBusValue]
        do { args = try Marshal.decodeBody(m, types: Signature(unvalidated: expected).types) } catch {
            sendError(address, error)
            return
        }
        let interfaceText = args[0].string ?? ""
        guard let iface = (try? InterfaceName(interfaceText)).flatMap({ object.interfaces[$0] }) else {
            sendError(address, DBusError(.unknownInterface, "object '\(object.path)' has no interface '\(interfaceText)'"))
            return
        }
        if member.rawValue == "GetAll" {
            var entries: [DictEntry] = []
            for p in iface.properties where p.access != .write {
                entries.append(DictEntry(.string(p.name.rawValue), .variant(p.read(address.sender))))
            }
            sendReply(address, [.dictionary(key: .string, value: .variant, entries)])
            return
        }
        let propertyText = args[1].string ?? ""
        guard let property = (try? MemberName(propertyText)).flatMap({ iface.property($0) }) else {
            sendError(address, DBusError(.unknownProperty, "interface '\(iface.name)' has no property '\(propertyText)'"))
            return
        }
        if member.rawValue == "Get" {
            guard property.access != .write else {
                sendError(address, DBusError(.accessDenied, "property '\(propertyText)' is write-only"))
                return
            }
            let value = property.read(address.sender)
            guard value.type == property.type else {
                sendError(address, DBusError(.failed, "internal error: property '\(propertyText)' has the wrong type"))
                return
            }
            sendReply(address, [.variant(value)])
            return
        }
        // Set
        guard let setter = property.set else {
            sendError(address, DBusError(.propertyReadOnly, "property '\(propertyText)' of '\(iface.name)' is read-only"))
            return
        }
        let newValue = args[2].unwrapped
        guard newValue.type == property.type else {
            sendError(address, DBusError(.invalidArgs, "property '\(propertyText)' has type '\(property.type)', not '\(newValue.type)'"))
            return
        }
        do {
            try setter(newValue)
        } catch {
            sendError(address, DBusError.from(error))
            return
        }
        sendReply(address, [])
        switch property.emitsChanged {
        case .true:
            sendSignal(path: object.path, interface: InterfaceName.properties, member: "PropertiesChanged",
                       arguments: [.string(iface.name.rawValue), .vardict([propertyText: property.read(nil)]), .strings([])],
                       destination: nil)
        case .invalidates:
            sendSignal(path: object.path, interface: InterfaceName.properties, member: "PropertiesChanged",
                       arguments: [.string(iface.name.rawValue), .vardict([:]), .strings([propertyText])],
                       destination: nil)
        case .const, .false:
            break
        }
    }
}

extension Signature {
    /// The types of a signature literal known to be valid.
    init(unvalidated: String) { self = try! Signature(unvalidated) }
}

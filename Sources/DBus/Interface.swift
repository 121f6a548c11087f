/// One named, typed argument of a method or signal.
public struct Argument: Sendable, Hashable {
    /// The argument's name as shown in introspection data.
    public let name: String
    /// The argument's single complete type.
    public let type: DBusType
    /// For a string-keyed dictionary (`a{sv}` options): the keys the handler reads. Entries
    /// with other keys are skipped unread when a call is decoded (D-Bus convention: unknown
    /// option keys are ignored), so a large value under an unknown key costs nothing.
    public let keys: Set<String>?
    /// For a string: the longest the handler accepts, in bytes. A longer string is handed to
    /// the handler cut to `maxBytes + 1` bytes — enough for it to see that it is too long and
    /// say so in its own words — and is never copied whole out of the message.
    public let maxBytes: Int?

    public init(_ name: String, _ type: DBusType, keys: Set<String>? = nil, maxBytes: Int? = nil) {
        self.name = name
        self.type = type
        self.keys = keys
        self.maxBytes = maxBytes
    }

    /// An argument from a signature literal holding one complete type (e.g. `"a{sv}"`);
    /// an invalid literal is a programming error.
    public init(_ name: String, _ signature: String, keys: Set<String>? = nil, maxBytes: Int? = nil) {
        do { self.type = try Signature.singleType(signature) } catch { preconditionFailure(error.description) }
        self.name = name
        self.keys = keys
        self.maxBytes = maxBytes
    }
}

/// How an exported method runs.
public enum MethodHandler: Sendable {
    /// Runs on the connection's loop thread, with no thread hop: for quick, non-blocking
    /// work such as a lookup in memory. It must never wait for anything.
    case inline(@Sendable (MethodCall) throws -> [DBusValue])
    /// Runs in a new task; the reply is sent when it returns or throws.
    case async(@Sendable (MethodCall) async throws -> [DBusValue])
    /// Runs in a new task like ``async(_:)``; `followUp` (if any) runs on the loop thread right
    /// after the reply has been sent, so anything it emits reaches the caller after the reply
    /// (a signal about an object the reply names, say).
    case asyncThen(@Sendable (MethodCall) async throws -> MethodResult)
    /// Like ``asyncThen(_:)``, but the task starts at once on the loop thread and comes back to
    /// it after each wait (its preferred executor is the connection's ``LoopExecutor``): no hop
    /// to the shared pool and back. Only for handlers whose steps between waits are short and
    /// never block; one may move to the pool with `withTaskExecutorPreference(globalConcurrentExecutor)`.
    case onLoop(@Sendable (MethodCall) async throws -> MethodResult)
    /// Tries `inline` on the loop thread; when it returns nil (the answer needs something it
    /// must wait for, such as who the caller is), runs `async` in a task instead.
    case inlineOrAsync(inline: @Sendable (MethodCall) throws -> [DBusValue]?, async: @Sendable (MethodCall) async throws -> [DBusValue])
    /// Like ``inline(_:)``, answering with a body marshalled before (``EncodedReply``): for a
    /// large answer that many calls share, kept by the handler.
    case inlineEncoded(@Sendable (MethodCall) throws -> EncodedReply)
}

/// What an ``MethodHandler/asyncThen(_:)`` handler returns: the reply, and what to do once it
/// has been sent.
public struct MethodResult: Sendable {
    public let values: [DBusValue]
    public let followUp: (@Sendable () -> Void)?
    public init(_ values: [DBusValue], followUp: (@Sendable () -> Void)? = nil) {
        self.values = values
        self.followUp = followUp
    }
}

/// A method of an exported interface: its name, typed arguments and handler. Incoming
/// calls are checked against `inputs` before the handler runs (a mismatch is answered with
/// `InvalidArgs`), and the handler's result is checked against `outputs`.
public struct Method: Sendable {
    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    public let handler: MethodHandler
    /// Extra `<annotation>` elements for introspection (name → value).
    public let annotations: [(String, String)]
    let inputTypes: [DBusType]
    let inputLimits: [Marshal.Limits]
    let inputSignature: String
    let outputTypes: [DBusType]
    /// Reads the arguments itself (``MessageReader``), into ``MethodCall/decoded``; nil: they are
    /// decoded into ``MethodCall/arguments``.
    let decode: (@Sendable (inout MessageReader) throws(DBusError) -> any Sendable)?

    public init(
        _ name: MemberName, inputs: [Argument] = [], outputs: [Argument] = [],
        annotations: [(String, String)] = [], handler: MethodHandler
    ) {
        self.init(name, inputs: inputs, outputs: outputs, annotations: annotations, decoder: nil, handler: handler)
    }

    /// A method whose arguments `decode` reads from the call's message (checked against `inputs`
    /// first, as any call's): the handler finds what it returned in ``MethodCall/decoded``, and
    /// no ``MethodCall/arguments``. What it throws is the call's error reply.
    public init(
        _ name: MemberName, inputs: [Argument] = [], outputs: [Argument] = [],
        annotations: [(String, String)] = [], decode: @escaping @Sendable (inout MessageReader) throws(DBusError) -> any Sendable,
        handler: MethodHandler
    ) {
        self.init(name, inputs: inputs, outputs: outputs, annotations: annotations, decoder: decode, handler: handler)
    }

    private init(
        _ name: MemberName, inputs: [Argument], outputs: [Argument], annotations: [(String, String)],
        decoder: (@Sendable (inout MessageReader) throws(DBusError) -> any Sendable)?, handler: MethodHandler
    ) {
        self.decode = decoder
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.handler = handler
        self.annotations = annotations
        self.inputTypes = inputs.map(\.type)
        self.inputLimits = inputs.map { Marshal.Limits(keys: $0.keys, maxBytes: $0.maxBytes) }
        self.inputSignature = inputTypes.map(\.signature).joined()
        self.outputTypes = outputs.map(\.type)
    }
}

/// A signal an interface emits (declared for introspection; emit it with
/// ``Connection/emit(path:interface:member:_:destination:)``).
public struct SignalDeclaration: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    public init(_ name: MemberName, arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// A property of an exported interface, served through `org.freedesktop.DBus.Properties`.
public struct Property: Sendable {
    /// Whether callers may read and/or write the property.
    public enum Access: String, Sendable { case read, write, readwrite }
    /// The `org.freedesktop.DBus.Property.EmitsChangedSignal` annotation.
    public enum EmitsChanged: String, Sendable { case `true`, invalidates, const, `false` }

    public let name: MemberName
    public let type: DBusType
    public let access: Access
    public let emitsChanged: EmitsChanged
    /// Reads the current value for a caller (its unique name; nil for a `PropertiesChanged`
    /// signal everyone may see). Runs on the loop thread: it must be quick.
    public let read: @Sendable (_ caller: String?) -> DBusValue
    /// Stores a new value (already checked to have ``type``); throw to refuse it.
    public let set: (@Sendable (DBusValue) throws -> Void)?

    public init(
        _ name: MemberName, type: DBusType, emitsChanged: EmitsChanged = .true,
        get: @escaping @Sendable () -> DBusValue, set: (@Sendable (DBusValue) throws -> Void)? = nil
    ) {
        self.name = name
        self.type = type
        self.access = set == nil ? .read : .readwrite
        self.emitsChanged = emitsChanged
        self.read = { _ in get() }
        self.set = set
    }

    /// A read-only property whose value depends on who asks (a per-caller view).
    public init(_ name: MemberName, type: DBusType, emitsChanged: EmitsChanged = .true,
                read: @escaping @Sendable (_ caller: String?) -> DBusValue) {
        self.name = name
        self.type = type
        self.access = .read
        self.emitsChanged = emitsChanged
        self.read = read
        self.set = nil
    }
}

/// An interface declaration. One declaration drives both dispatch of incoming calls and
/// the introspection XML the object reports.
public struct Interface: Sendable {
    public let name: InterfaceName
    public let methods: [Method]
    public let signals: [SignalDeclaration]
    public let properties: [Property]
    let methodIndex: [MemberName: Int]
    let propertyIndex: [MemberName: Int]

    public init(_ name: InterfaceName, methods: [Method] = [], signals: [SignalDeclaration] = [], properties: [Property] = []) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
        var mi: [MemberName: Int] = [:]
        for (i, m) in methods.enumerated() {
            precondition(mi[m.name] == nil, "method \(m.name) declared twice in \(name)")
            mi[m.name] = i
        }
        var pi: [MemberName: Int] = [:]
        for (i, p) in properties.enumerated() {
            precondition(pi[p.name] == nil, "property \(p.name) declared twice in \(name)")
            pi[p.name] = i
        }
        methodIndex = mi
        propertyIndex = pi
    }

    /// The method called `name`, if declared.
    public func method(_ name: MemberName) -> Method? { methodIndex[name].map { methods[$0] } }
    /// The property called `name`, if declared.
    public func property(_ name: MemberName) -> Property? { propertyIndex[name].map { properties[$0] } }
}

/// Interfaces to export together at an object path (``Connection/export(_:at:)-(InterfaceSet,_)``),
/// looked up by name: built once, for objects made often with the same interfaces.
public struct InterfaceSet: Sendable {
    let table: [InterfaceName: Interface]

    /// The set of `interfaces`; throws `InvalidArgs` when one is named twice.
    public init(_ interfaces: [Interface]) throws(DBusError) {
        var table: [InterfaceName: Interface] = [:]
        for i in interfaces {
            if table[i.name] != nil { throw DBusError(.invalidArgs, "interface \(i.name) given twice") }
            table[i.name] = i
        }
        self.table = table
    }
}

/// The interfaces exported at one object path.
struct ExportedObject: Sendable {
    let path: ObjectPath
    var interfaces: [InterfaceName: Interface]
}

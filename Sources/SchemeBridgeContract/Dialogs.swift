import LinuxSystem

/// The message a dialog program and the service exchange (docs/CONTRACT.md, "The dialogs"): the
/// service starts the program — the shipped `schemebridge-dialog`, or `[Chooser] Command=` — with
/// pipes it created (no other program can speak on them), writes one ``DialogRequest`` to its
/// stdin and reads one ``DialogAnswer`` from its stdout, each a JSON object on one line with
/// `"version": 1`. The schema is these types: their coding keys are the JSON names, read by the
/// writer and reader below (the service has no Foundation) and by any `JSONEncoder`; the Python
/// side (dialogs/schemebridge_dialogs/message.py) checks the same names and version.
public enum DialogProtocol {
    /// The version both sides speak; a message of another is refused.
    public static let version = 1
    /// The longest answer read (bytes); the longest request a dialog takes is 4 MiB.
    public static let answerLimit = 64 * 1024
}

/// What the dialog is asked (service → dialog). No URL is ever in it for a chooser (only the
/// scheme), and a share's data never is: its items are described (name, type, size, a URL
/// shared, the first lines of a text) and a file item names a path the dialog may read for a
/// thumbnail (`/proc/<service pid>/fd/<n>`, the caller's own descriptor).
public struct DialogRequest: Sendable, Equatable, Codable {
    /// What the question is about.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// A URL scheme's handler (`open --ask`): `subject` is the scheme.
        case scheme
        /// A document's handler (`OpenFile` with `ask`, a received file): `subject` is its content type.
        case type
        /// A pick's provider: `subject` is `pick:TYPE`.
        case pick
        /// A share's target: `subject` is `x-schemebridge/share`; ``share`` describes the items.
        case share
    }

    /// Who asks, as a user knows it.
    public struct Caller: Sendable, Equatable, Codable {
        /// The app id, `""` when unidentified.
        public var id: String
        /// The display name the service computed: the entry's `Name`, a script's file name for an
        /// interpreter, the executable's file name; `""` when none.
        public var name: String
        /// The command line (`schemebridge` run from a terminal) asks: the dialog says so.
        public var commandLine: Bool

        public init(id: String, name: String, commandLine: Bool = false) {
            self.id = id
            self.name = name
            self.commandLine = commandLine
        }

        enum CodingKeys: String, CodingKey {
            case id, name
            case commandLine = "command-line"
        }
    }

    /// One target offered; the first is the default.
    public struct Candidate: Sendable, Equatable, Codable {
        /// `app` (an app, or a share's action of one), `device` (a nearby device), `builtin`
        /// (SchemeBridge's own activities).
        public enum Kind: String, Sendable, Equatable, Codable { case app, device, builtin }
        public var id: String
        public var name: String
        /// A theme icon name or an absolute image file, `""` when none.
        public var icon: String
        public var kind: Kind

        enum CodingKeys: String, CodingKey { case id, name, icon, kind }

        public init(id: String, name: String, icon: String, kind: Kind = .app) {
            self.id = id
            self.name = name
            self.icon = icon
            self.kind = kind
        }
    }

    /// One shared item, described.
    public struct Item: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Equatable, Codable { case file, url, text, data }
        public var kind: Kind
        public var name: String?
        public var type: String?
        /// Bytes; nil when unknown.
        public var size: Int?
        /// A path the dialog may read for a preview (a file item's).
        public var path: String?
        /// A URL item's URL.
        public var url: String?
        /// A text item's first lines.
        public var text: String?

        enum CodingKeys: String, CodingKey { case kind, name, type, size, path, url, text }

        public init(kind: Kind, name: String? = nil, type: String? = nil, size: Int? = nil, path: String? = nil, url: String? = nil, text: String? = nil) {
            self.kind = kind
            self.name = name
            self.type = type
            self.size = size
            self.path = path
            self.url = url
            self.text = text
        }
    }

    /// What a share holds.
    public struct Share: Sendable, Equatable, Codable {
        public var count: Int
        /// The items' distinct types, in order.
        public var types: [String]
        public var items: [Item]

        enum CodingKeys: String, CodingKey { case count, types, items }

        public init(count: Int, types: [String], items: [Item]) {
            self.count = count
            self.types = types
            self.items = items
        }
    }

    public var version: Int
    public var kind: Kind
    public var subject: String
    public var caller: Caller
    /// A pick's title, when the caller gave one.
    public var title: String?
    /// Whether "Always" may be offered.
    public var canRemember: Bool
    /// The caller's activation token: the window takes focus with it.
    public var activationToken: String?
    /// The caller's window, as portals take it: `x11:` and the X id in lowercase hexadecimal
    /// without `0x` (`x11:1a00003`), or `wayland:HANDLE` (exported with xdg-foreign); the service
    /// has checked the form (the `parent-window` option). The dialog is transient for it.
    public var parentWindow: String?
    /// For a file a device sent: the device's name.
    public var receivedFrom: String?
    public var candidates: [Candidate]
    /// A share's items (kind `share` only).
    public var share: Share?

    enum CodingKeys: String, CodingKey {
        case version, kind, subject, caller, title, candidates, share
        case canRemember = "can-remember"
        case activationToken = "activation-token"
        case parentWindow = "parent-window"
        case receivedFrom = "received-from"
    }

    public init(kind: Kind, subject: String, caller: Caller, candidates: [Candidate], canRemember: Bool, title: String? = nil,
                activationToken: String? = nil, parentWindow: String? = nil, receivedFrom: String? = nil, share: Share? = nil) {
        self.version = DialogProtocol.version
        self.kind = kind
        self.subject = subject
        self.caller = caller
        self.title = title
        self.canRemember = canRemember
        self.activationToken = activationToken
        self.parentWindow = parentWindow
        self.receivedFrom = receivedFrom
        self.candidates = candidates
        self.share = share
    }

    /// The request as the one line the dialog reads (JSON, then a line feed).
    public var line: [UInt8] {
        typealias K = CodingKeys
        var members: [(String, DialogJSON)] = [
            (K.version.rawValue, .number(.init(version))), (K.kind.rawValue, .string(kind.rawValue)), (K.subject.rawValue, .string(subject)),
            (K.caller.rawValue, .object([
                (Caller.CodingKeys.id.rawValue, .string(caller.id)), (Caller.CodingKeys.name.rawValue, .string(caller.name)),
                (Caller.CodingKeys.commandLine.rawValue, .bool(caller.commandLine)),
            ])),
            (K.canRemember.rawValue, .bool(canRemember)),
        ]
        for (key, value) in [(K.title, title), (K.activationToken, activationToken), (K.parentWindow, parentWindow), (K.receivedFrom, receivedFrom)] {
            if let value { members.append((key.rawValue, .string(value))) }
        }
        typealias C = Candidate.CodingKeys
        members.append((K.candidates.rawValue, .array(candidates.map {
            .object([(C.id.rawValue, .string($0.id)), (C.name.rawValue, .string($0.name)), (C.icon.rawValue, .string($0.icon)),
                     (C.kind.rawValue, .string($0.kind.rawValue))])
        })))
        if let share {
            typealias S = Share.CodingKeys
            typealias I = Item.CodingKeys
            members.append((K.share.rawValue, .object([
                (S.count.rawValue, .number(.init(share.count))), (S.types.rawValue, .array(share.types.map { .string($0) })),
                (S.items.rawValue, .array(share.items.map { item in
                    var fields: [(String, DialogJSON)] = [(I.kind.rawValue, .string(item.kind.rawValue))]
                    for (key, value) in [(I.name, item.name), (I.type, item.type), (I.path, item.path), (I.url, item.url), (I.text, item.text)] {
                        if let value { fields.append((key.rawValue, .string(value))) }
                    }
                    if let size = item.size { fields.append((I.size.rawValue, .number(.init(size)))) }
                    return .object(fields)
                })),
            ])))
        }
        return Array((DialogJSON.object(members).text + "\n").utf8)
    }
}

/// What the dialog answered (dialog → service).
public struct DialogAnswer: Sendable, Equatable, Codable {
    /// The outcome: a pick, a cancel, or the dialog's failure (never a cancel: the caller gets `NoChooser`).
    public enum Outcome: String, Sendable, Equatable, Codable { case chosen, cancelled, failed }
    public var version: Int
    public var answer: Outcome
    /// The chosen candidate's id (`chosen`).
    public var id: String?
    /// Remember it for the caller (`chosen`).
    public var always: Bool?
    /// Why it failed (`failed`).
    public var reason: String?
    /// A fresh activation token the dialog obtained for the launch of the chosen app (`chosen`,
    /// optional): from the compositor (`xdg_activation_v1`) on Wayland, a startup id made from the
    /// event that chose on X11. The caller's own token was spent by the dialog's window, so this
    /// one, not the caller's, goes to the app. An added member of version 1: a dialog that does
    /// not send it still speaks version 1. Checked as a token is (``isValidToken(_:)``).
    public var activationToken: String?

    enum CodingKeys: String, CodingKey {
        case version, answer, id, always, reason
        case activationToken = "activation-token"
    }

    public init(_ answer: Outcome, id: String? = nil, always: Bool? = nil, reason: String? = nil, activationToken: String? = nil) {
        self.version = DialogProtocol.version
        self.answer = answer
        self.id = id
        self.always = always
        self.reason = reason
        self.activationToken = activationToken
    }

    /// Whether `token` is an `activation-token` an answer may carry: not empty, at most 4096
    /// bytes, no control characters (it goes into an environment variable and X11 properties).
    public static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 4096 && !token.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// The answer in `output` (the dialog's stdout: its first line). Throws
    /// ``DialogMessageError`` for anything that is not a version-1 answer of this schema: no
    /// line, not JSON, another version, an unknown outcome, a `chosen` without an id, a field of
    /// the wrong type.
    public init(output: [UInt8]) throws(DialogMessageError) {
        guard output.count <= DialogProtocol.answerLimit else { throw DialogMessageError("the answer is over \(DialogProtocol.answerLimit) bytes") }
        let line = output.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: true).first.map(Array.init) ?? []
        guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { throw DialogMessageError("the dialog answered nothing") }
        guard case .object(let members)? = DialogJSON.parse(line) else { throw DialogMessageError("the answer is not a JSON object") }
        func member(_ key: CodingKeys) -> DialogJSON? { members.first { $0.0 == key.rawValue }?.1 }
        guard case .number(let v)? = member(.version) else { throw DialogMessageError("the answer has no version") }
        guard v.double == Double(DialogProtocol.version) else { throw DialogMessageError("answer version \(v) is not \(DialogProtocol.version)") }
        guard case .string(let o)? = member(.answer), let outcome = Outcome(rawValue: o) else {
            throw DialogMessageError("the answer's 'answer' is none of chosen, cancelled, failed")
        }
        self.init(outcome)
        switch member(.id) {
        case .string(let s)?: id = s
        case nil, .null?: break
        default: throw DialogMessageError("the answer's 'id' is not a string")
        }
        switch member(.always) {
        case .bool(let b)?: always = b
        case nil, .null?: break
        default: throw DialogMessageError("the answer's 'always' is not a boolean")
        }
        switch member(.reason) {
        case .string(let s)?: reason = s
        case nil, .null?: break
        default: throw DialogMessageError("the answer's 'reason' is not a string")
        }
        switch member(.activationToken) {
        case .string(let s)? where Self.isValidToken(s): activationToken = s
        case .string?: throw DialogMessageError("the answer's 'activation-token' is empty, too long or holds control characters")
        case nil, .null?: break
        default: throw DialogMessageError("the answer's 'activation-token' is not a string")
        }
        if outcome == .chosen, (id ?? "").isEmpty { throw DialogMessageError("a 'chosen' answer without an id") }
    }
}

/// A message that is not one of the contract's.
public struct DialogMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The JSON the dialog messages are written in: LinuxSystem's ``JSONValue``, the project's one
/// reader and writer (no Foundation on the service's path).
public typealias DialogJSON = JSONValue

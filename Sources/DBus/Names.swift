/// Validated D-Bus names. Every name is checked in Swift, against the rules of the
/// D-Bus specification, before libdbus ever sees it: libdbus aborts the whole process
/// when handed an invalid name, so invalid input must stop here with a thrown error.

/// Why a name or signature was refused.
public struct InvalidNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of name was being validated ("bus name", "object path", ...).
    public let kind: String
    /// The refused text (truncated to 200 characters for messages).
    public let text: String
    /// A human-readable reason.
    public let reason: String

    public var description: String {
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return "invalid \(kind) '\(shown)': \(reason)"
    }
}

@inline(__always)
private func isAlpha(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
@inline(__always)
private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

enum NameRules {
    static let maximumNameLength = 255

    /// Interface and error names: two or more dot-separated elements of `[A-Za-z0-9_]`,
    /// no element empty or starting with a digit, at most 255 bytes.
    static func interfaceProblem(_ s: String) -> String? {
        let bytes = s.utf8  // walked in place: no array of its bytes made
        if bytes.isEmpty { return "empty" }
        if bytes.count > maximumNameLength { return "longer than 255 bytes" }
        var elements = 1
        var elementStart = true
        for c in bytes {
            if c == 0x2E {  // "."
                if elementStart { return "empty element" }
                elements += 1
                elementStart = true
                continue
            }
            if !(isAlpha(c) || isDigit(c) || c == 0x5F) { return "character not in [A-Za-z0-9_.]" }
            if elementStart && isDigit(c) { return "element starts with a digit" }
            elementStart = false
        }
        if elementStart { return "empty element" }
        if elements < 2 { return "needs at least two elements separated by '.'" }
        return nil
    }

    /// Bus names: unique (`:1.42`) or well-known (`org.example.App`), elements of
    /// `[A-Za-z0-9_-]`, at least two, at most 255 bytes; only unique names may have
    /// elements that start with a digit.
    static func busNameProblem(_ s: String) -> String? {
        var bytes = Substring(s).utf8[...]
        if bytes.isEmpty { return "empty" }
        if s.utf8.count > maximumNameLength { return "longer than 255 bytes" }
        let unique = bytes.first == 0x3A  // ":"
        if unique { bytes = bytes.dropFirst() }
        var elements = 1
        var elementStart = true
        for c in bytes {
            if c == 0x2E {
                if elementStart { return "empty element" }
                elements += 1
                elementStart = true
                continue
            }
            if !(isAlpha(c) || isDigit(c) || c == 0x5F || c == 0x2D) { return "character not in [A-Za-z0-9_-.]" }
            if elementStart && isDigit(c) && !unique { return "element starts with a digit" }
            elementStart = false
        }
        if elementStart { return "empty element" }
        if elements < 2 { return "needs at least two elements separated by '.'" }
        return nil
    }

    /// Member names: one element of `[A-Za-z0-9_]`, not starting with a digit, 1...255 bytes.
    static func memberProblem(_ s: String) -> String? {
        let bytes = s.utf8
        if bytes.isEmpty { return "empty" }
        if bytes.count > maximumNameLength { return "longer than 255 bytes" }
        if isDigit(bytes.first!) { return "starts with a digit" }
        for c in bytes where !(isAlpha(c) || isDigit(c) || c == 0x5F) { return "character not in [A-Za-z0-9_]" }
        return nil
    }

    /// Object paths: `/` or `/` followed by `/`-separated non-empty elements of `[A-Za-z0-9_]`.
    static func pathProblem(_ s: String) -> String? {
        let bytes = s.utf8
        guard bytes.first == 0x2F else { return "must start with '/'" }
        if bytes.count == 1 { return nil }
        var previousSlash = true
        for c in bytes.dropFirst() {
            if c == 0x2F {
                if previousSlash { return "empty element ('//')" }
                previousSlash = true
                continue
            }
            if !(isAlpha(c) || isDigit(c) || c == 0x5F) { return "character not in [A-Za-z0-9_/]" }
            previousSlash = false
        }
        if previousSlash { return "trailing '/'" }
        return nil
    }
}

/// A bus name: a unique connection name (`:1.42`) or a well-known name
/// (`org.example.Todo1`).
public struct BusName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`; throws ``InvalidNameError`` when it is not a bus name.
    public init(_ rawValue: String) throws(InvalidNameError) {
        if let problem = NameRules.busNameProblem(rawValue) {
            throw InvalidNameError(kind: "bus name", text: rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    /// A literal must be valid; an invalid literal is a programming error. Note that
    /// `BusName("literal")` is a literal too (SE-0213): pass a `String` variable to validate input.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }
    /// True for a unique connection name such as `:1.42`.
    public var isUnique: Bool { rawValue.utf8.first == 0x3A }
    public var description: String { rawValue }
}

/// An object path such as `/org/example/Todo1`.
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path as text.
    public let rawValue: String
    /// Validates `rawValue`; throws ``InvalidNameError`` when it is not an object path.
    public init(_ rawValue: String) throws(InvalidNameError) {
        if let problem = NameRules.pathProblem(rawValue) {
            throw InvalidNameError(kind: "object path", text: rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }
    /// The root path `/`.
    public static let root = ObjectPath(unchecked: "/")
    /// The path's elements; empty for `/`.
    public var elements: [Substring] { rawValue.split(separator: "/") }
    /// The path with `element` appended (the element must be a valid path element).
    public func appending(_ element: String) throws(InvalidNameError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }
    /// The path with `number`'s decimal digits appended as an element (always a valid one).
    public func appending(number: UInt64) -> ObjectPath {
        ObjectPath(unchecked: (rawValue == "/" ? "/" : rawValue + "/") + String(number))
    }
    public static func < (a: ObjectPath, b: ObjectPath) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }
}

/// An interface name such as `org.freedesktop.DBus.Properties`.
public struct InterfaceName: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`; throws ``InvalidNameError`` when it is not an interface name.
    public init(_ rawValue: String) throws(InvalidNameError) {
        if let problem = NameRules.interfaceProblem(rawValue) {
            throw InvalidNameError(kind: "interface name", text: rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }
    public static func < (a: InterfaceName, b: InterfaceName) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }
    /// `org.freedesktop.DBus.Properties`.
    public static let properties = InterfaceName(unchecked: "org.freedesktop.DBus.Properties")
}

/// A method, signal or property name such as `OpenURL`.
public struct MemberName: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`; throws ``InvalidNameError`` when it is not a member name.
    public init(_ rawValue: String) throws(InvalidNameError) {
        if let problem = NameRules.memberProblem(rawValue) {
            throw InvalidNameError(kind: "member name", text: rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }
    public static func < (a: MemberName, b: MemberName) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }
}

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs` (same rules as interfaces).
public struct ErrorName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`; throws ``InvalidNameError`` when it is not an error name.
    public init(_ rawValue: String) throws(InvalidNameError) {
        if let problem = NameRules.interfaceProblem(rawValue) {
            throw InvalidNameError(kind: "error name", text: rawValue, reason: problem)
        }
        self.rawValue = rawValue
    }
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure(error.description) }
    }
    public var description: String { rawValue }
}

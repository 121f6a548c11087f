import Synchronization

/// What each registry change tells every listener: `HandlersChanged` naming the changed schemes,
/// and — when the installed schemes are not what they were at the last change — the `Schemes`
/// property's new value. Under query privacy (``Broker/broadcast(changed:schemes:)``) neither
/// names a scheme: `HandlersChanged` names none and the property is only invalidated.
public final class RegistryAnnouncer: Sendable {
    let broker: Broker
    /// The installed schemes at the last change (at first, when the announcer was made).
    private let lastSchemes: Mutex<[String]>

    public init(broker: Broker) {
        self.broker = broker
        lastSchemes = Mutex(broker.registry.schemes)
    }

    /// What one change tells.
    public struct Announcement: Sendable, Equatable {
        /// The schemes `HandlersChanged` names, sorted (none under query privacy).
        public var changedSchemes: [String]
        /// The `Schemes` property's change: nil when the installed schemes are as before.
        public var schemes: SchemesProperty?
    }

    /// How the `Schemes` property changed.
    public enum SchemesProperty: Sendable, Equatable {
        /// To this value.
        case changed([String])
        /// Only invalidated (query privacy): a listener asks, within its own scope.
        case invalidated

        /// The new value; nil when only invalidated.
        public var value: [String]? {
            if case .changed(let schemes) = self { return schemes }
            return nil
        }
    }

    /// The announcement of a registry change of the `changed` schemes.
    public func announce(_ changed: Set<String>) -> Announcement {
        let schemes = broker.registry.schemes
        let broadcast = broker.broadcast(changed: changed, schemes: schemes)
        let moved = lastSchemes.withLock { last in
            defer { last = schemes }
            return last != schemes
        }
        return Announcement(changedSchemes: broadcast.changedSchemes,
                            schemes: moved ? broadcast.schemes.map { .changed($0) } ?? .invalidated : nil)
    }
}

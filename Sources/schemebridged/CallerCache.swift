import DBus
import Glibc
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// Core's caller, named so ``CallerCache/Caller`` can refer to it.
typealias IdentifiedCaller = Caller

/// The app id of each caller, found once per unique bus name when it first calls us (never for
/// connections that do not), and forgotten when the name leaves the bus.
///
/// GetConnectionCredentials gives the pid; ``CallerIdentifier`` reads the rest from `/proc` on
/// a ``BlockingThreadPool`` (a caller whose files block costs one thread of its own, never a
/// shared one); a caller whose identification takes longer than the threads' timeout is
/// unidentified. Concurrent first calls of one caller share one identification.
final class CallerCache: Sendable {
    /// What is known of a caller: the one ``SchemeBridgeCore/Caller`` type.
    typealias Caller = IdentifiedCaller

    private struct State {
        var known: [String: Caller] = [:]
        var pending: [String: Task<Caller, Never>] = [:]
    }
    private let state = Mutex(State())
    private enum Lookup {
        case known(Caller)
        case pending(Task<Caller, Never>)
    }
    /// How a client running our CLI is traced back to its app.
    let ancestry: CallerAncestry
    /// Where identification runs.
    let threads: BlockingThreadPool
    private let logger: Logger?

    /// `ancestry` defaults to our CLI beside this executable, with our own desktop id.
    init(ancestry: CallerAncestry? = nil, threads: BlockingThreadPool = BlockingThreadPool(name: "sb-identify", timeout: .seconds(3), maximumThreads: 16), logger: Logger? = nil) {
        self.ancestry = ancestry ?? CallerAncestry(
            cliPath: CallerAncestry.cliBeside(serviceExecutable: CallerIdentity.executablePath(pid: getpid())),
            ownAppIDs: [DesktopID.appID(Contract.ownDesktopID)], steps: AncestorSteps())
        self.threads = threads
        self.logger = logger
    }

    /// Who `sender` is; an unknown caller gives nils (never an error).
    func caller(_ sender: String, connection: Connection, registry: Registry? = nil) async -> Caller {
        let lookup: Lookup = state.withLock { s in
            if let known = s.known[sender] { return .known(known) }
            if let pending = s.pending[sender] { return .pending(pending) }
            let task = Task { await self.identify(sender, connection: connection, registry: registry) }
            s.pending[sender] = task
            return .pending(task)
        }
        switch lookup {
        case .known(let known): return known
        case .pending(let task): return await task.value
        }
    }

    private func identify(_ sender: String, connection: Connection, registry: Registry?) async -> Caller {
        let pid = (try? await BusDriver(connection).credentials(of: sender))?.processID
        var caller = Caller(busName: sender, pid: pid)
        if let pid {
            let identifier = CallerIdentifier(ancestry: ancestry, registry: registry,
                                              rule: registry.map { ExecIdentityRule(directories: $0.directories) } ?? ExecIdentityRule(home: "", userApplications: ""))
            let started = ContinuousClock.now
            if let identity = await threads.run({ identifier.identify(pid: Int32(bitPattern: pid)) }) {
                caller = Caller(busName: sender, pid: pid, appID: identity.appID, throughCLI: identity.throughCLI, lineage: identity.lineage,
                                sandboxed: identity.sandboxed, sharedIdentity: identity.shared)
                logger?.debug("identified \(sender) (pid \(pid)) as \(identity.appID ?? "nothing") in \(ContinuousClock.now - started)")
            } else {
                logger?.notice("could not identify \(sender) (pid \(pid)) within \(threads.timeout): treated as unidentified")
            }
        }
        // Stored only while the name is still on the bus (a name that left is never reused).
        state.withLock { s in
            if s.pending.removeValue(forKey: sender) != nil { s.known[sender] = caller }
        }
        return caller
    }

    /// What is known of `sender` without asking the bus (nil when not identified yet).
    func cached(_ sender: String) -> Caller? { state.withLock { $0.known[sender] } }

    /// Forgets `name` (it left the bus).
    func forget(_ name: String) {
        state.withLock { s in
            s.known.removeValue(forKey: name)
            s.pending.removeValue(forKey: name)
        }
    }

    var count: Int { state.withLock { $0.known.count } }
}

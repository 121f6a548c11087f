import Glibc
import LinuxSystem
import Synchronization

/// The app id of each caller, found once per unique bus name when it first calls (never for
/// connections that do not), and forgotten when the name leaves the bus.
///
/// The bus gives the pid (`credentials`, the daemon's `GetConnectionCredentials`);
/// ``CallerIdentifier`` reads the rest from `/proc` on a ``BlockingThreadPool`` (a caller whose
/// files block costs one thread of its own, never a shared one); a caller whose identification
/// takes longer than the threads' timeout is unidentified. Concurrent first calls of one caller
/// share one identification.
public final class CallerCache: Sendable {
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
    let registry: Registry?
    /// The pid of a bus name's connection (nil: the bus would not say).
    let credentials: @Sendable (String) async -> UInt32?
    /// Where identifications are told (`notice`: one that timed out).
    let log: @Sendable (_ notice: Bool, _ message: String) -> Void

    /// `ancestry` defaults to our CLI beside this executable, apps `ownAppIDs` being ours.
    public init(ownAppIDs: Set<String>, registry: Registry?, threads: BlockingThreadPool = BlockingThreadPool(name: "sb-identify", timeout: .seconds(3), maximumThreads: 16),
                credentials: @escaping @Sendable (String) async -> UInt32?,
                log: @escaping @Sendable (_ notice: Bool, _ message: String) -> Void = { _, _ in }) {
        self.ancestry = CallerAncestry(cliPath: CallerAncestry.cliBeside(serviceExecutable: CallerIdentity.executablePath(pid: getpid())),
                                       ownAppIDs: ownAppIDs, steps: AncestorSteps())
        (self.threads, self.registry, self.credentials, self.log) = (threads, registry, credentials, log)
    }

    /// Who `sender` is; an unknown caller gives nils (never an error).
    public func caller(_ sender: String) async -> Caller {
        let lookup: Lookup = state.withLock { s in
            if let known = s.known[sender] { return .known(known) }
            if let pending = s.pending[sender] { return .pending(pending) }
            let task = Task { await self.identify(sender) }
            s.pending[sender] = task
            return .pending(task)
        }
        switch lookup {
        case .known(let known): return known
        case .pending(let task): return await task.value
        }
    }

    private func identify(_ sender: String) async -> Caller {
        let pid = await credentials(sender)
        var caller = Caller(busName: sender, pid: pid)
        if let pid {
            let identifier = CallerIdentifier(ancestry: ancestry, registry: registry,
                                              rule: registry.map { ExecIdentityRule(directories: $0.directories) } ?? ExecIdentityRule(home: "", userApplications: ""))
            let started = ContinuousClock.now
            if let identity = await threads.run({ identifier.identify(pid: Int32(bitPattern: pid)) }) {
                caller = Caller(busName: sender, pid: pid, id: identity.id, throughCLI: identity.throughCLI, lineage: identity.lineage,
                                sandboxed: identity.sandboxed, sharedIdentity: identity.shared)
                log(false, "identified \(sender) (pid \(pid)) as \(identity.id?.text ?? "nothing") in \(ContinuousClock.now - started)")
            } else {
                log(true, "could not identify \(sender) (pid \(pid)) within \(threads.timeout): treated as unidentified")
            }
        }
        // Stored only while the name is still on the bus (a name that left is never reused).
        state.withLock { s in
            if s.pending.removeValue(forKey: sender) != nil { s.known[sender] = caller }
        }
        return caller
    }

    /// What is known of `sender` without asking the bus (nil when not identified yet).
    public func cached(_ sender: String) -> Caller? { state.withLock { $0.known[sender] } }

    /// The process of connection `name`: its identity's when it has called (a unique name's
    /// process never changes), else asked of the bus now (not kept).
    public func processID(of name: String) async -> UInt32? {
        if let pid = cached(name)?.pid { return pid }
        return await credentials(name)
    }

    /// Forgets `name` (it left the bus).
    public func forget(_ name: String) {
        state.withLock { s in
            s.known.removeValue(forKey: name)
            s.pending.removeValue(forKey: name)
        }
    }

    /// How many callers are known.
    public var count: Int { state.withLock { $0.known.count } }
}

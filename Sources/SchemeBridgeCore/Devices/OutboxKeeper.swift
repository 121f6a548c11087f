import Glibc
import LinuxSystem
import Synchronization

/// The ``Outbox`` in the service: where a device send's data that is not a file becomes one (on
/// the descriptor threads of a ``DescriptorRunner``), what a share's items are sent as, and the
/// sweeps — at start and whenever the next item expires (a timer for that deadline, not a
/// polling loop).
public final class OutboxKeeper: Sendable {
    /// How loud a line of the keeper's log is.
    public enum LogLevel: Sendable { case debug, info }

    /// The outbox; nil without `XDG_RUNTIME_DIR` (data that is not a file cannot be sent then).
    public let outbox: Outbox?
    let runner: any DescriptorRunner
    @usableFromInline let log: @Sendable (LogLevel, String) -> Void
    /// The pending sweep and the expiry it is for.
    private let pending = Mutex<(deadline: Int64, task: Task<Void, Never>)?>(nil)
    /// The directories a share's file is never sent from by its path (the outbox and the
    /// Inboxes), as given and as the last look on a descriptor thread resolved them: what a
    /// look on the calling thread (``DeviceFileLook``) excludes. Nil before that first look.
    private let resolvedExclusions = Mutex<(given: [String], resolved: [String])?>(nil)

    /// A keeper of `outbox`, its blocking work on `runner`, its lines to `log`.
    public init(outbox: Outbox?, runner: any DescriptorRunner, log: @escaping @Sendable (LogLevel, String) -> Void) {
        (self.outbox, self.runner, self.log) = (outbox, runner, log)
    }

    /// The sends of a share's `items` to a device, each routed by ``DeviceItemRoute`` in the
    /// order of ``DevicePayload/sends(files:others:)``: a file by its own path or as an outbox
    /// copy as ``DeviceFileSource`` says (from the facts found as the share was made, else found
    /// now for `caller`, the Inboxes at `inbox` excluded), data that is not text as an outbox
    /// file. Also the files' paths (whose upload may be followed). Inlinable: specialized for the
    /// daemon's descriptor type where it is called (unspecialized, each item's payload ran through
    /// the runtime's generic metadata).
    @inlinable
    public func sends<Held>(for items: [SharedItem<Held>], caller: Caller, inbox: String) async throws(ServiceFailure) -> (files: [String], sends: [DevicePayload]) {
        if let direct = directSends(for: items) { return direct }
        var files: [String] = []
        var others: [DevicePayload] = []
        for item in items {
            let (route, inline) = Self.route(of: item)
            switch route {
            case .text(let text): others.append(.text(text))
            case .url(let url): others.append(.url(url))
            case .outboxFile(let name):
                if case .file(let fd) = item.payload,
                   case .direct(let path) = await source(ofFile: fd.rawValue, name: item.name, facts: item.facts, caller: caller, inbox: inbox) {
                    files.append(path)
                } else if let source = item.descriptor {
                    files.append(try await place(copying: source, name: name))
                } else {
                    files.append(try await place(inline ?? [], name: name))
                }
            }
        }
        return (files, DevicePayload.sends(files: files, others: others))
    }

    /// The sends of ``sends(for:caller:inbox:)`` when nothing has to wait for them: every file
    /// item goes by its own path as the facts found when the share was made say, and no item
    /// becomes an outbox file; else nil. On the calling thread, with no suspension: a share can
    /// hand them to the engine before anything else.
    @inlinable
    public func directSends<Held>(for items: [SharedItem<Held>]) -> (files: [String], sends: [DevicePayload])? {
        var files: [String] = []
        var others: [DevicePayload] = []
        for item in items {
            switch Self.route(of: item).route {
            case .text(let text): others.append(.text(text))
            case .url(let url): others.append(.url(url))
            case .outboxFile:
                guard case .file = item.payload, let facts = item.facts, case .direct(let path) = DeviceFileSource.of(facts) else { return nil }
                files.append(path)
            }
        }
        // Logged once it is known that they go so (a share that needs a copy is sent by ``sends(for:caller:inbox:)``, which says its own).
        for _ in files { log(.debug, "a shared file goes to the device by its own path") }
        return (files, DevicePayload.sends(files: files, others: others))
    }

    /// What `item` is sent as (``DeviceItemRoute``), and its bytes when it holds them.
    @inlinable
    static func route<Held>(of item: SharedItem<Held>) -> (route: DeviceItemRoute, inline: [UInt8]?) {
        var inline: [UInt8]? = nil, url: String? = nil
        switch item.payload {
        case .url(let u): url = u
        case .data(.bytes(let bytes), _): inline = bytes
        case .file, .data(.descriptor, _): break
        }
        return (DeviceItemRoute.of(item.summary, name: item.name, url: url, bytes: inline), inline)
    }

    /// Where file item `fd` (named `name`, "" for none) that `caller` shares is sent from: from
    /// `facts` when they were found as the share was made, else from facts found now on a
    /// descriptor thread (an outbox copy when they cannot be).
    public func source(ofFile fd: Int32, name: String, facts: SharedFileFacts? = nil, caller: Caller, inbox: String) async -> DeviceFileSource {
        let found: SharedFileFacts?
        if let facts {
            found = facts
        } else {
            found = try? await runner.run(for: "outbox") { [self] () throws in self.facts(ofFile: fd, name: name, caller: caller, inbox: inbox) }
        }
        let source = found.map(DeviceFileSource.of) ?? .outboxCopy
        log(.debug, source == .outboxCopy ? "a shared file goes to the device as an outbox copy" : "a shared file goes to the device by its own path")
        return source
    }

    /// The facts ``DeviceFileSource`` decides from for file item `fd` (named `name`, "" for none)
    /// that `caller` shares; the outbox and the Inboxes (`inbox`) are excluded. Blocking: call it
    /// on a descriptor thread.
    public func facts(ofFile fd: Int32, name: String, caller: Caller, inbox: String) -> SharedFileFacts {
        let sandboxed: Bool? = caller.appID == nil ? nil : caller.sandboxed  // unidentified: not known
        let given = excludedDirectories(inbox: inbox), resolved = SharedFileFacts.resolving(given)
        resolvedExclusions.withLock { $0 = (given, resolved) }
        return FileDescriptor.lending(fd) { SharedFileFacts.gather(fd: $0, name: name, callerSandboxed: sandboxed, excludedAsResolved: resolved) }
    }

    /// What a share naming a device that `caller` makes looks at its file items with (the Inboxes
    /// at `inbox` excluded): the facts found on a descriptor thread, and the look on the calling
    /// thread for a file whose look cannot block.
    public func looks(caller: Caller, inbox: String) -> (facts: @Sendable (Int32, String) -> SharedFileFacts, local: DeviceLocalLook) {
        let facts: @Sendable (Int32, String) -> SharedFileFacts = { [self] fd, name in self.facts(ofFile: fd, name: name, caller: caller, inbox: inbox) }
        return (facts, localLook(caller: caller, inbox: inbox))
    }

    /// The look at a shared file on the calling thread, for `caller` (the Inboxes at `inbox`
    /// excluded): a file whose look cannot block (``DeviceFileLook``) once the excluded
    /// directories were resolved on a descriptor thread (by ``facts(ofFile:name:caller:inbox:)``).
    public func localLook(caller: Caller, inbox: String) -> DeviceLocalLook {
        let given = excludedDirectories(inbox: inbox)
        let resolved: @Sendable () -> [String]? = { [self] in resolvedExclusions.withLock { $0?.given == given ? $0?.resolved : nil } }
        let sandboxed: Bool? = caller.appID == nil ? nil : caller.sandboxed
        return DeviceLocalLook(look: { fd in
            guard resolved() != nil else { return nil }
            return DeviceFileLook.look(fd: fd)
        }, facts: { fd, name, path, status in
            SharedFileFacts.gather(name: name, callerSandboxed: sandboxed, excludedAsResolved: resolved() ?? [], kernelPath: path, status: status)
        })
    }

    private func excludedDirectories(inbox: String) -> [String] { [outbox?.directory, inbox].compactMap { $0 } }

    /// Writes `bytes` as an outbox file named `name` (for sending data that is not a file);
    /// returns its path. `LaunchFailed` without `XDG_RUNTIME_DIR` or when the outbox is unusable.
    public func place(_ bytes: [UInt8], name: String?) async throws(ServiceFailure) -> String {
        try await place { outbox, now throws(FileSystemError) in try outbox.place(bytes, name: name, now: now) }
    }

    /// Copies what `fd` holds (from its start) into an outbox file named `name`; returns its path.
    public func place(copying fd: Int32, name: String?) async throws(ServiceFailure) -> String {
        try await place { outbox, now throws(FileSystemError) in
            lseek(fd, 0, SEEK_SET)  // a file or memfd read for its type; a pipe stays where it is
            return try FileDescriptor.lending(fd) { d throws(FileSystemError) in try outbox.place(copying: d, name: name, now: now) }
        }
    }

    private func place(_ write: @escaping @Sendable (Outbox, Int64) throws(FileSystemError) -> String) async throws(ServiceFailure) -> String {
        guard let outbox else { throw ServiceFailure(.launchFailed, "XDG_RUNTIME_DIR is not set: there is no private outbox to send data from") }
        let now = Int64(time(nil))
        let outcome: Result<String, FileSystemError>
        do {
            outcome = try await runner.run(for: "outbox") { () -> Result<String, FileSystemError> in
                do throws(FileSystemError) { return .success(try write(outbox, now)) } catch { return .failure(error) }
            }
        } catch {
            throw ServiceFailure(.launchFailed, "the data could not be written to the outbox: \(runner.failure(of: error).message)")
        }
        switch outcome {
        case .success(let path):
            schedule(now + outbox.lifetime)
            return path
        case .failure(let error):
            throw ServiceFailure(.launchFailed, "the data could not be written to the outbox: \(error.description)")
        }
    }

    /// Removes expired outbox items, then waits for the next expiry.
    public func sweep() async {
        guard let outbox else { return }
        let now = Int64(time(nil))
        guard let result = try? await runner.run(for: "outbox", { () throws in outbox.sweep(now: now) }) else { return }
        if result.removed > 0 { log(.info, "outbox: removed \(result.removed) expired item(s)") }
        if let next = result.nextExpiry { schedule(next) }
    }

    /// The deadline (seconds since the epoch) of the sweep pending, if any.
    public var nextSweep: Int64? { pending.withLock { $0?.deadline } }

    /// Sweeps at `deadline` (seconds since the epoch) unless a sweep is due earlier already.
    private func schedule(_ deadline: Int64) {
        pending.withLock { pending in
            if let pending, pending.deadline <= deadline { return }
            pending?.task.cancel()
            let task = Task { [self] in
                let wait = max(0, deadline - Int64(time(nil))) + 1
                do { try await Task.sleep(for: .seconds(wait)) } catch { return }
                self.pending.withLock { if $0?.deadline == deadline { $0 = nil } }
                await sweep()
            }
            pending = (deadline, task)
        }
    }

    /// Stops the pending sweep.
    public func stop() { pending.withLock { $0?.task.cancel(); $0 = nil } }
}

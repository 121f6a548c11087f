import DBus
import Glibc
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices
import Synchronization

/// Nearby devices in the service: the KDE Connect engine followed live (``KDEConnectEngine``),
/// GSConnect too (``GSConnectEngine``, used only when KDE Connect is not on the bus), and the outbox where data that is not a file becomes one the engine can send (swept at
/// start and whenever its next item expires — a timer for that deadline, not a polling loop).
final class DeviceService: Sendable {
    let engine: KDEConnectEngine
    /// GSConnect, followed beside KDE Connect; shares go to it only when KDE Connect is absent.
    let gsconnect: GSConnectEngine
    let outbox: Outbox?
    /// The session's folders (where KDE Connect's downloads are: ``ReceivedPlaces``).
    let directories: XDGDirectories
    let descriptors: DescriptorWork
    let logger: Logger
    /// The session's `XDG_CURRENT_DESKTOP` (a KDE session has its own job viewer).
    let desktop: String?
    /// The pending outbox sweep and the expiry it is for.
    private let sweep = Mutex<(deadline: Int64, task: Task<Void, Never>)?>(nil)

    init(connection: Connection, environment: [String: String], descriptors: DescriptorWork, logger: Logger) {
        self.engine = KDEConnectEngine(connection: connection, logger: logger)
        self.gsconnect = GSConnectEngine(connection: connection, logger: logger)
        self.outbox = Outbox(environment: environment)
        self.directories = XDGDirectories(environment: environment)
        self.descriptors = descriptors
        self.logger = logger
        self.desktop = environment["XDG_CURRENT_DESKTOP"]
    }

    /// Starts following the engine and sweeps the outbox (what a previous run left expires now
    /// or later, by its own expiry).
    func start() async {
        do {
            try await engine.start()
        } catch {
            logger.warning("cannot follow KDE Connect (no device targets): \(error)")
        }
        await engine.jobs.start(desktop: desktop)
        do {
            try await gsconnect.start()
        } catch {
            logger.warning("cannot follow GSConnect (no GSConnect device targets): \(error)")
        }
        if outbox == nil { logger.notice("XDG_RUNTIME_DIR is not set: data that is not a file cannot be sent to devices") }
        await sweepOutbox()
    }

    /// The device sending path the share service calls (``DeviceSending``): KDE Connect,
    /// or GSConnect where only it is on the bus (``PreferredDeviceEngine``).
    var sender: any DeviceSending { PreferredDeviceEngine(kdeconnect: engine, gsconnect: gsconnect) }

    /// Where file item `fd` (named `name`, "" for none) that `caller` shares is sent from: its
    /// own path or an outbox copy (``DeviceFileSource``; a copy when its facts cannot be gathered),
    /// from facts gathered now on a descriptor thread.
    func source(ofFile fd: Int32, name: String, caller: Caller, inbox: String) async -> DeviceFileSource {
        let facts = try? await descriptors.run(for: "outbox") { [self] () throws in
            self.facts(ofFile: fd, name: name, caller: caller, inbox: inbox)
        }
        return facts.map(source(from:)) ?? .outboxCopy
    }

    /// Where a shared file item with `facts` is sent from (``DeviceFileSource/of(_:)``).
    func source(from facts: SharedFileFacts) -> DeviceFileSource {
        let source = DeviceFileSource.of(facts)
        logger.debug("a shared file goes to the device \(source == .outboxCopy ? "as an outbox copy" : "by its own path")")
        return source
    }

    /// The facts ``DeviceFileSource`` decides from for file item `fd` (named `name`, "" for none)
    /// that `caller` shares; the outbox and the Inboxes (`inbox`) are excluded. Blocking: call it
    /// on a descriptor thread.
    func facts(ofFile fd: Int32, name: String, caller: Caller, inbox: String) -> SharedFileFacts {
        let sandboxed: Bool? = caller.appID == nil ? nil : caller.sandboxed  // unidentified: not known
        let excluded = [outbox?.directory, inbox].compactMap { $0 }
        return FileDescriptor.lending(fd) { SharedFileFacts.gather(fd: $0, name: name, callerSandboxed: sandboxed, excluding: excluded) }
    }

    /// Writes `bytes` as an outbox file named `name` (for sending data that is not a file);
    /// returns its path. Fails without `XDG_RUNTIME_DIR` or when the outbox is unusable.
    func materialise(_ bytes: [UInt8], name: String?) async throws(ServiceFailure) -> String {
        try await materialise { outbox, now throws(FileSystemError) in try outbox.place(bytes, name: name, now: now) }
    }

    /// Copies what `fd` holds (from its start) into an outbox file named `name`; returns its path.
    func materialise(copying fd: Int32, name: String?) async throws(ServiceFailure) -> String {
        try await materialise { outbox, now throws(FileSystemError) in
            lseek(fd, 0, SEEK_SET)  // a file or memfd read for its type; a pipe stays where it is
            return try FileDescriptor.lending(fd) { d throws(FileSystemError) in try outbox.place(copying: d, name: name, now: now) }
        }
    }

    private func materialise(_ place: @escaping @Sendable (Outbox, Int64) throws(FileSystemError) -> String) async throws(ServiceFailure) -> String {
        guard let outbox else { throw ServiceFailure(.launchFailed, "XDG_RUNTIME_DIR is not set: there is no private outbox to send data from") }
        let now = Int64(time(nil))
        let path: String
        do {
            path = try await descriptors.run(for: "outbox") { () throws in
                do throws(FileSystemError) { return try place(outbox, now) } catch { throw DBusError(.failed, error.description) }
            }
        } catch {
            throw ServiceFailure(.launchFailed, "the data could not be written to the outbox: \(DBusError.from(error).message)")
        }
        schedule(now + outbox.lifetime)
        return path
    }

    /// Removes expired outbox items, then waits for the next expiry.
    func sweepOutbox() async {
        guard let outbox else { return }
        let now = Int64(time(nil))
        let result = try? await descriptors.run(for: "outbox") { () throws in outbox.sweep(now: now) }
        if let result {
            if result.removed > 0 { logger.info("outbox: removed \(result.removed) expired item(s)") }
            if let next = result.nextExpiry { schedule(next) }
        }
    }

    /// Sweeps at `deadline` (seconds since the epoch) unless a sweep is due earlier already.
    private func schedule(_ deadline: Int64) {
        sweep.withLock { pending in
            if let pending, pending.deadline <= deadline { return }
            pending?.task.cancel()
            let task = Task { [self] in
                let wait = max(0, deadline - Int64(time(nil))) + 1
                do { try await Task.sleep(for: .seconds(wait)) } catch { return }
                sweep.withLock { if $0?.deadline == deadline { $0 = nil } }
                await sweepOutbox()
            }
            pending = (deadline, task)
        }
    }

    /// Stops following the engine and the pending sweep.
    func stop() {
        engine.stop()
        gsconnect.stop()
        sweep.withLock { $0?.task.cancel(); $0 = nil }
    }
}

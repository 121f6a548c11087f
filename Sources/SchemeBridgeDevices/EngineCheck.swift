import DBus
import LinuxSystem
import Logging
import SchemeBridgeCore

/// Whether the owner of an engine's bus name is the engine: its process id from the bus
/// (`GetConnectionUnixProcessID`), what `/proc` says of that process (``EngineProcess``, read on
/// threads of its own: an executable on a file system that never answers costs one of them),
/// judged by the core's ``DeviceEngineRule``; and the name still held by the same connection
/// afterwards (a process that left while it was looked at is not taken for its successor).
/// Asked each time the name changes owner; until the answer is yes the engine counts as absent.
public struct EngineCheck: Sendable {
    let threads: BlockingThreadPool

    /// `threads` reads the owner's process.
    public init(threads: BlockingThreadPool = BlockingThreadPool(name: "sb-engine", timeout: .seconds(3), maximumThreads: 2, maximumWaiting: 16)) {
        self.threads = threads
    }

    /// The facts of `owner`'s process when it may be `engine` (which owns `busName`); nil,
    /// with a warning naming the reason, when not.
    func judge(owner: String, busName: BusName, engine: DeviceEngineKind, connection: Connection, logger: Logger, label: String) async -> EngineProcess? {
        let driver = BusDriver(connection)
        let refused = { (reason: String) -> EngineProcess? in
            logger.warning("\(busName.rawValue) is owned by \(owner), which is not \(label): \(reason); its devices and what it reports are ignored")
            return nil
        }
        guard let pid = try? await driver.processID(of: owner), pid > 0, pid <= UInt32(Int32.max) else {
            return refused("the bus does not say which process it is")
        }
        guard let found = await threads.run({ EngineProcess.gather(pid: Int32(pid)) }), let process = found else {
            return refused("its process \(pid) could not be examined")
        }
        if let reason = DeviceEngineRule.refusal(of: process, as: engine) { return refused(reason) }
        guard (try? await driver.nameOwner(busName.rawValue)) == owner else { return nil }  // it left meanwhile: the next change is judged
        return process
    }
}

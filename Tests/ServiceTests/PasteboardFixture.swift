import Foundation
import Glibc
import DBusTestSupport
import SchemeBridgeContract

/// Pasteboard tests' helpers on a ``ServiceFixture``: a python3-dbus module the test clients
/// import (`Clients/pb.py`), and copies of the python interpreter under other names, so a client can be
/// another app (the service tells apps apart by their executable when nothing else names them).
extension ServiceFixture {
    /// Copies `Clients/pb.py` beside the records, with `contract.py` (the contract's names it
    /// uses), and returns the directory to put on `PYTHONPATH`.
    func pasteboardModule() throws -> String {
        let dir = root.appendingPathComponent("py").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
            N, O = '\(Self.name)', '\(Self.path)'
            PBS, PB = '\(Contract.pasteboardsInterface.rawValue)', '\(Contract.pasteboardInterface.rawValue)'
            ERR = '\(Contract.errorPrefix)'
            """.write(toFile: dir + "/contract.py", atomically: true, encoding: .utf8)
        try String(contentsOfFile: Clients.path("pb"), encoding: .utf8).write(toFile: dir + "/pb.py", atomically: true, encoding: .utf8)
        return dir
    }

    /// A copy of the system python named `name` in `bin/`: a client of another identity.
    func pythonNamed(_ name: String) throws -> String {
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: Tools.systemPython)).map { "/usr/bin/" + $0 } ?? Tools.systemPython
        let path = bin.appendingPathComponent(name).path
        // A hard link where it can be (the same file under another name, so another app): a copy
        // is open for writing while it is made, and a child that another test thread forks meanwhile
        // inherits that descriptor until it execs, so exec'ing the copy can fail with ETXTBSY.
        if !FileManager.default.fileExists(atPath: path), link(real, path) != 0 {
            let temp = path + ".copying"
            try FileManager.default.copyItem(atPath: real, toPath: temp)
            try FileManager.default.moveItem(atPath: temp, toPath: path)
        }
        return path
    }

    /// Runs the client file `name` (see ``Clients``) with `args` under `python`, with `pb.py`
    /// importable and `SB_BUS` set.
    func runClient(_ name: String, python: String = Tools.systemPython, _ args: [String] = []) async throws -> ProcessResult {
        let module = try pasteboardModule()
        return try await Tools.run([python, Clients.path(name)] + args, environment: ["PYTHONPATH": module, "SB_BUS": bus.address])
    }

    /// `$XDG_STATE_HOME/schemebridge/pasteboards` of the service (HOME is the fixture's root).
    var pasteboardStorage: URL { root.appendingPathComponent(".local/state/schemebridge/pasteboards") }

    /// The memfds the service holds open now (its pasteboards' data).
    func serviceMemfds() async -> Int {
        guard let pid = await servicePID() else { return -1 }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "").contains("memfd:schemebridge-pasteboard") }.count
    }
}

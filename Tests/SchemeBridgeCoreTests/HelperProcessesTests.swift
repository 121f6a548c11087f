import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Launch-image helpers: a cap on how many run at once, and a take-down that can only reach
/// the helper itself (issue 12, items 4 and 9).
@Suite struct HelperProcessesTests {
    /// Exit codes by pid, as the helpers end.
    final class Exits: Sendable {
        let codes = Mutex<[Int32: Int32]>([:])
        func code(_ pid: Int32) -> Int32? { codes.withLock { $0[pid] } }
    }

    func waitFor(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<6000 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test func atMostTheLimitRunAndATakeDownReachesOnlyOurHelper() async throws {
        let helpers = HelperProcesses()
        let exits = Exits()
        func start() throws -> Int32? {
            let box = Mutex<Int32>(0)
            let pid = try helpers.start(argv: ["/bin/sleep", "600"], environment: [:], limit: 2) { code in
                let pid = box.withLock { $0 }
                exits.codes.withLock { $0[pid] = code }
            }
            if let pid { box.withLock { $0 = pid } }
            return pid
        }
        let first = try #require(try start())
        let second = try #require(try start())
        #expect(try start() == nil, "a third helper while two run")
        #expect(helpers.count == 2)
        #expect(helpers.terminate(first))
        #expect(await waitFor { exits.code(first) != nil && helpers.count == 1 })
        #expect(exits.code(first) == 128 + SIGTERM)
        // Ended and reaped: its pid is no longer ours, whoever has it now; nothing is signalled.
        #expect(!helpers.terminate(first))
        // A process that is not one of our helpers (as a reused pid would be) is never signalled.
        // (Started with our own launcher, not Foundation's Process: Foundation's child handling
        // in this process, beside ours, took the whole test run down.)
        let strangerExit = Exits()
        let stranger = try ProcessLauncher().spawn(argv: ["/bin/sleep", "600"], environment: [:], onExit: { code in
            strangerExit.codes.withLock { $0[0] = code }
        })
        defer { kill(stranger, SIGKILL) }
        #expect(!helpers.terminate(stranger))
        #expect(strangerExit.code(0) == nil, "the stranger still runs")
        let third = try #require(try start(), "a place is free again")
        #expect(helpers.terminate(second) && helpers.terminate(third))
        #expect(await waitFor { helpers.count == 0 })
    }
}

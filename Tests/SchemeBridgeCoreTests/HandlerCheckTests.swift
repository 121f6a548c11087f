import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Who may answer a request (or open its x-callback URLs): its launched handler only.
@Suite struct HandlerCheckTests {
    /// An `ownerOf` that answers `owner` and counts how often it was asked.
    final class OwnerLookup: Sendable {
        let owner: String?
        let asked = Mutex(0)
        init(_ owner: String?) { self.owner = owner }
        func ownerOf(_ name: String) async -> String? { asked.withLock { $0 += 1 }; return owner }
    }

    @Test func aHandlerNotStartedIsNobody() async {
        let lookup = OwnerLookup(":1.5")
        #expect(await !HandlerCheck.isHandler(nil, sender: ":1.5", pid: getpid(), ownerOf: lookup.ownerOf))
        #expect(lookup.asked.withLock { $0 } == 0, "the bus is not asked")
    }

    @Test func aSpawnedHandlerIsItsProcessAndNotAStranger() async {
        let handler = LaunchedHandler.spawned(HandlerProcess(pid: getpid()))
        let lookup = OwnerLookup(nil)
        #expect(await HandlerCheck.isHandler(handler, sender: ":1.5", pid: getpid(), ownerOf: lookup.ownerOf))
        #expect(await !HandlerCheck.isHandler(handler, sender: ":1.5", pid: getppid(), ownerOf: lookup.ownerOf))
        #expect(await !HandlerCheck.isHandler(handler, sender: ":1.5", pid: nil, ownerOf: lookup.ownerOf), "no pid, no proof")
        #expect(lookup.asked.withLock { $0 } == 0, "a spawned handler needs no name owner")
    }

    @Test func anActivatingHandlerIsWhoeverOwnsItsNameNow() async {
        let handler = LaunchedHandler.activating(busName: "org.example.App")
        let owned = OwnerLookup(":1.9")
        #expect(await HandlerCheck.isHandler(handler, sender: ":1.9", pid: nil, ownerOf: owned.ownerOf))
        #expect(await !HandlerCheck.isHandler(handler, sender: ":1.10", pid: nil, ownerOf: owned.ownerOf))
        #expect(owned.asked.withLock { $0 } == 2)
        // Nobody owns the name (yet): nobody is the handler.
        #expect(await !HandlerCheck.isHandler(handler, sender: ":1.9", pid: nil, ownerOf: OwnerLookup(nil).ownerOf))
        // A prepared check is reused for the request the token names (asked once).
        let check = await HandlerCheck.prepared(for: handler, sender: ":1.9", pid: nil, ownerOf: owned.ownerOf)
        #expect(check.nameOwner == ":1.9" && check.isHandler(handler) && !check.isHandler(nil))
    }

    @Test func anActivatedHandlerIsItsOwnerConnection() async {
        let handler = LaunchedHandler.activated(owner: ":1.4", process: nil)
        let lookup = OwnerLookup(nil)
        #expect(await HandlerCheck.isHandler(handler, sender: ":1.4", pid: nil, ownerOf: lookup.ownerOf))
        #expect(await !HandlerCheck.isHandler(handler, sender: ":1.6", pid: getpid(), ownerOf: lookup.ownerOf))
    }
}

import Synchronization
import Testing
@testable import SchemeBridgeCore

/// One `Close` handler for every request object: the request is found by its path's last number,
/// and only the caller it was made for may close it.
@Suite struct RequestClosersTests {
    @Test func onlyTheRequestsCallerClosesItFoundByItsPath() {
        let closers = RequestClosers()
        let closed = Mutex<[UInt64]>([])
        for id: UInt64 in [7, 12] {
            closers.add(id, caller: ":1.5", close: { closed.withLock { $0.append(id) }; return true })
        }
        #expect(!closers.close(path: "/io/github/schemebridge/Request/12", sender: ":1.6"), "another caller closed it")
        #expect(closers.close(path: "/io/github/schemebridge/Request/12", sender: ":1.5"))
        #expect(!closers.close(path: "/io/github/schemebridge/Request/8", sender: ":1.5"), "no request 8")
        #expect(!closers.close(path: "/io/github/schemebridge/Request/x7", sender: ":1.5"))
        closers.remove(7)
        #expect(!closers.close(path: "/io/github/schemebridge/Request/7", sender: ":1.5"), "its object is gone")
        #expect(closed.withLock { $0 } == [12])
    }

    @Test func aRequestAlreadyDoneAnswersFalse() {
        let closers = RequestClosers()
        closers.add(3, caller: ":1.9", close: { false })
        #expect(!closers.close(path: "/io/github/schemebridge/Request/3", sender: ":1.9"))
    }
}

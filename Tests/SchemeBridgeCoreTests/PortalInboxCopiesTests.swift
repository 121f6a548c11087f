import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// The Inbox sweep in two steps (issue 40): the copies past the retention, then the removal of
/// those no document of the portal refers to (the daemon asks the portal in between).
@Suite struct PortalInboxCopiesTests {
    @Test func expiredCopiesAreListedAndOnlyThoseGivenGo() throws {
        let tree = XDGTree(dataDirCount: 0)
        let inbox = Inbox(root: tree.root + "/inbox")
        let now = Int64(time(nil)), retention: Int64 = 7 * 86_400
        func file(_ app: String, _ name: String, age: Int64) -> String {
            let path = "\(inbox.root)/\(app)/\(name)"
            tree.write(path, name)
            var times = [timespec(tv_sec: time_t(now - age), tv_nsec: 0), timespec(tv_sec: time_t(now - age), tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
            return path
        }
        let referred = file("org.test.A", "picked.png", age: retention + 100)
        let young = file("org.test.A", "new.png", age: 10)
        let orphan = file("org.test.B", "old (2).png", age: retention + 100)
        let expired = inbox.expired(retention: retention, now: now).map { String(decoding: $0, as: UTF8.self) }.sorted()
        #expect(expired == [referred, orphan].sorted())
        // Only the unreferenced one is given: it goes, and its Inbox left empty with it.
        #expect(inbox.remove(expired: [Array(orphan.utf8)], retention: retention, now: now) == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan) && !FileManager.default.fileExists(atPath: "\(inbox.root)/org.test.B"))
        #expect(FileManager.default.fileExists(atPath: referred) && FileManager.default.fileExists(atPath: young))
        // A copy changed since it was listed is not removed.
        var times = [timespec(tv_sec: time_t(now), tv_nsec: 0), timespec(tv_sec: time_t(now), tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, referred, &times, 0)
        #expect(inbox.remove(expired: [Array(referred.utf8)], retention: retention, now: now) == 0)
        #expect(FileManager.default.fileExists(atPath: referred))
    }
}

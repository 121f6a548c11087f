import Foundation
import LinuxSystem
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Live updates when the kernel refuses an inotify instance (the user's
/// `fs.inotify.max_user_instances` used up): the watcher's instance maker is made to fail,
/// then to work. Every wait polls for the registry's answer with a generous ceiling.
extension WatcherTests {
    @Suite struct InotifyRetryTests {
        /// Makes inotify instances, refusing them (`EMFILE`) until ``recover()``.
        final class RefusedInotify: Sendable {
            private let state = Mutex((refusing: true, calls: 0, given: 0))

            func options(retry: Duration, maximum: Duration) -> DirectoryWatcher.Options {
                DirectoryWatcher.Options(makeInstance: { [self] () throws(Errno) in try make() }, retryInterval: retry, maximumRetryInterval: maximum)
            }

            private func make() throws(Errno) -> FileDescriptor {
                let refused = state.withLock { s in
                    s.calls += 1
                    if !s.refusing { s.given += 1 }
                    return s.refusing
                }
                if refused { throw Errno(EMFILE) }
                return try FileDescriptor.inotifyInstance()
            }

            func recover() { state.withLock { $0.refusing = false } }
            var calls: Int { state.withLock { $0.calls } }
            var given: Int { state.withLock { $0.given } }
        }

        static let ceiling: Duration = .seconds(30)

        @Test func entriesAreFoundWhileInotifyIsRefusedAndLiveOnceItWorks() async throws {
            let t = XDGTree()
            let inotify = RefusedInotify()
            let warnings = Mutex<[String]>([])
            let r = Registry(environment: t.environment, watch: inotify.options(retry: .milliseconds(20), maximum: .milliseconds(200)),
                             index: .disabled) { w in warnings.withLock { $0.append(w.message) } }
            defer { r.close() }
            #expect(warnings.withLock { $0.contains { $0.contains("fs.inotify.max_user_instances") } }, "\(warnings.withLock { $0 })")

            // Refused: the directories are read again every few intervals, so a new entry counts.
            t.entry(0, "meanwhile.desktop", schemes: ["meanwhile"])
            #expect(await waitUntil(timeout: Self.ceiling) { r.handlers(forScheme: "meanwhile") == ["meanwhile.desktop"] } != nil,
                    "an entry written while inotify is refused is found by the rescans")
            #expect(inotify.given == 0 && inotify.calls > 1, "asked again, refused each time")

            // Written while refused, right before inotify works again: there after it recovers.
            t.entry(1, "before.desktop", schemes: ["before"])
            inotify.recover()
            #expect(await waitUntil(timeout: Self.ceiling) { warnings.withLock { $0.contains("watching for changes again") } } != nil)
            #expect(inotify.given == 1)
            #expect(r.handlers(forScheme: "before") == ["before.desktop"], "the rescan after recovery found it")

            // Live again: nothing rescans any more, so only inotify can report these.
            let calls = inotify.calls
            t.entry(0, "after.desktop", schemes: ["after"])
            #expect(await waitUntil(timeout: Self.ceiling) { r.handlers(forScheme: "after") == ["after.desktop"] } != nil)
            t.mkdir(t.apps(2) + "/vendor")
            t.entry(2, "vendor/new.desktop", schemes: ["after"])
            #expect(await waitUntil(timeout: Self.ceiling) { r.handlers(forScheme: "after") == ["after.desktop", "vendor-new.desktop"] } != nil,
                    "new subdirectories are watched too")
            #expect(inotify.calls == calls, "no more attempts once watching")
        }

        @Test func aWatcherWithoutInotifyStopsAtOnce() async throws {
            let t = XDGTree()
            let inotify = RefusedInotify()
            // Attempts an hour apart: close() must not wait for the next one.
            let r = Registry(environment: t.environment, watch: inotify.options(retry: .seconds(3600), maximum: .seconds(3600)),
                             index: .disabled)
            let clock = ContinuousClock()
            let started = clock.now
            r.close()
            #expect(clock.now - started < .seconds(30))
            #expect(inotify.calls == 1)
        }
    }
}

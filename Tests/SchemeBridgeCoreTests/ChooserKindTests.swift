import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Which chooser asks: the configured program, a bus client only when configured, else the shipped one.
@Suite struct ChooserKindTests {
    /// A bus lookup that answers `available` and counts how often it was asked.
    final class BusLookup: Sendable {
        let available: Bool
        let asked = Mutex(0)
        init(_ available: Bool) { self.available = available }
        func callback() async -> Bool { asked.withLock { $0 += 1 }; return available }
    }

    @Test func aConfiguredCommandWinsWithoutAskingTheBus() async {
        let bus = BusLookup(true)
        #expect(await ChooserSettings(command: ["my-chooser", "--flag"], bus: true).chooser(busChooserAvailable: bus.callback)
            == .configured(["my-chooser", "--flag"]))
        #expect(bus.asked.withLock { $0 } == 0)
    }

    @Test func theBusOnlyWhenConfiguredAndAvailable() async {
        let bus = BusLookup(true)
        #expect(await ChooserSettings().chooser(busChooserAvailable: bus.callback) == .shipped, "Bus= is off by default")
        #expect(bus.asked.withLock { $0 } == 0, "an unconfigured bus chooser is not even looked for")
        #expect(await ChooserSettings(bus: true).chooser(busChooserAvailable: bus.callback) == .bus)
        #expect(await ChooserSettings(bus: true).chooser(busChooserAvailable: BusLookup(false).callback) == .shipped)
    }
}

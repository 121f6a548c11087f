import Testing
@testable import SchemeBridgeCore

/// Loop safety's memory of recent launches (`RecentLaunches`), found by the caller's processes
/// (every `OpenURL` asks), and the environment a handler is spawned with (`SpawnEnvironment`).
@Suite struct RecentLaunchesTests {
    static let none: @Sendable (String) async -> Int32? = { _ in nil }

    let tree = XDGTree(dataDirCount: 1)
    let registry: Registry

    init() {
        for id in ["old", "new", "other", "app", "h"] { tree.entry(1, id + ".desktop", schemes: ["s"]) }
        registry = tree.registry()
    }

    func entry(_ id: String) -> DesktopEntry { registry.entry(id: DesktopID(fileName: id))! }

    /// The launch found is the newest of the URL from any process of the lineage; other URLs'
    /// launches from the same processes are not.
    @Test func theNewestLaunchOfTheURLFromTheLineageIsFound() async {
        let launches = RecentLaunches()
        launches.record(url: "s://a", entry: entry("old.desktop"), pid: 100)
        launches.record(url: "s://b", entry: entry("other.desktop"), pid: 200)
        launches.record(url: "s://a", entry: entry("new.desktop"), pid: 300)
        #expect(await launches.handingBack("s://a", lineage: [300, 100], activatedPID: Self.none)?.handlerID == "new.desktop")
        #expect(await launches.handingBack("s://a", lineage: [100, 300], activatedPID: Self.none)?.handlerID == "new.desktop")
        #expect(await launches.handingBack("s://a", lineage: [200], activatedPID: Self.none) == nil)
        #expect(await launches.handingBack("s://b", lineage: [7, 200], activatedPID: Self.none)?.handlerID == "other.desktop")
        #expect(launches.launches(of: "s://a").map(\.handlerID) == ["new.desktop", "old.desktop"])
    }

    /// At most `capacity` launches are kept (the oldest go first), none older than `window`.
    @Test func theOldestGoBeyondTheCapacityAndAllAfterTheWindow() async {
        let launches = RecentLaunches(window: .seconds(60), capacity: 3)
        for pid in Int32(1)...5 { launches.record(url: "s://x", entry: entry("h.desktop"), pid: pid) }
        #expect(launches.launches(of: "s://x").compactMap(\.pid) == [5, 4, 3])
        #expect(await launches.handingBack("s://x", lineage: [2], activatedPID: Self.none) == nil)
        #expect(await launches.handingBack("s://x", lineage: [3], activatedPID: Self.none) != nil)
        // Many more than the capacity (the kept list is compacted now and then): still the newest three.
        for pid in Int32(10)..<400 { launches.record(url: "s://x", entry: entry("h.desktop"), pid: pid) }
        #expect(launches.launches(of: "s://x").compactMap(\.pid) == [399, 398, 397])
        #expect(await launches.handingBack("s://x", lineage: [396], activatedPID: Self.none) == nil)

        let short = RecentLaunches(window: .zero, capacity: 10)
        short.record(url: "s://y", entry: entry("h.desktop"), pid: 9)
        #expect(await short.handingBack("s://y", lineage: [9], activatedPID: Self.none) == nil)
        #expect(short.launches(of: "s://y").isEmpty)
    }

    /// An activation is asked about (once a name) until its process is noted; then it is found
    /// by its process without a question to the bus.
    @Test func anActivationIsAskedAboutUntilItsProcessIsNoted() async {
        let launches = RecentLaunches()
        launches.record(url: "s://c", entry: entry("app.desktop"), busName: "org.example.App")
        launches.record(url: "s://c", entry: entry("app.desktop"), busName: "org.example.App")
        let asked = Counter()
        let owner: (String) async -> Int32? = { name in
            await asked.add()
            return name == "org.example.App" ? 42 : nil
        }
        #expect(await launches.handingBack("s://c", lineage: [42, 1], activatedPID: owner)?.busName == "org.example.App")
        #expect(await asked.value == 1, "one question for the name")
        launches.activated(url: "s://c", busName: "org.example.App", pid: 42)
        let noQuestion: (String) async -> Int32? = { _ in
            Issue.record("the bus was asked about a noted activation")
            return nil
        }
        #expect(await launches.handingBack("s://c", lineage: [42], activatedPID: noQuestion)?.pid == 42)
        #expect(launches.launches(of: "s://c").allSatisfy { $0.pid == 42 })
    }

    actor Counter {
        var value = 0
        func add() { value += 1 }
    }

    /// A handler's environment: the service's, then the command's and the launch's variables over
    /// it; keys `execve` cannot pass are left out.
    @Test func theSpawnEnvironmentSetsVariablesOverItsBase() {
        let base = SpawnEnvironment(["PATH": "/usr/bin", "HOME": "/home/u", "": "x", "A=B": "y", "LANG": "C"])
        #expect(Set(base.lines) == ["PATH=/usr/bin", "HOME=/home/u", "LANG=C"])
        let launch = base.setting(["LANG": "de_DE.UTF-8", "APP": "1"]).setting(["APP": "2", "X=Y": "no"])
        #expect(Set(launch.lines) == ["PATH=/usr/bin", "HOME=/home/u", "LANG=de_DE.UTF-8", "APP=2"])
        #expect(launch.value("LANG") == "de_DE.UTF-8")
        #expect(launch.value("PATH") == "/usr/bin")
        #expect(launch.value("NOPE") == nil)
        #expect(Set(base.lines) == ["PATH=/usr/bin", "HOME=/home/u", "LANG=C"], "the base is left as it was")
    }
}

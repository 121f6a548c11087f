import Testing
@testable import SchemeBridgeCore

/// Which schemes integration may route through SchemeBridge (``Broker/schemesToIntegrate(_:ownID:)``).
@Suite struct IntegrationSchemesTests {
    static let own = "io.example.Bridge.desktop"

    static func broker(_ t: XDGTree) -> Broker {
        Broker(registry: t.registry(), policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [DesktopID(fileName: own)])
    }

    static func failure(_ body: () throws(ServiceFailure) -> some Any) -> ServiceFailure? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test func candidatesHaveAHandlerAndAreNotReserved() {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "todo.desktop", schemes: ["todolist", "https"])
        t.entry(1, "viewer.desktop", mimeTypes: ["x-scheme-handler/file"])
        let broker = Self.broker(t)
        #expect(broker.schemesWithHandlers.sorted() == ["https", "todolist"], "file is never routed")
        #expect(broker.integrationCandidates == ["todolist"], "a reserved scheme is taken only when named")
    }

    @Test func enablingNeedsTheOwnEntryAndHandlers() throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "todo.desktop", schemes: ["todolist", "https"])
        let missing = Self.failure { () throws(ServiceFailure) in try Self.broker(t).schemesToIntegrate([], ownID: Self.own) }
        #expect(missing?.kind == .failed && missing?.message.hasPrefix("SchemeBridge's own desktop entry \(Self.own) is not installed") == true)
        t.entry(1, Self.own, schemes: [])
        let broker = Self.broker(t)
        #expect(try broker.schemesToIntegrate([], ownID: Self.own) == ["todolist"])
        #expect(try broker.schemesToIntegrate(["HTTPS"], ownID: Self.own) == ["https"], "named, a reserved scheme is taken")
        #expect(Self.failure { () throws(ServiceFailure) in try broker.schemesToIntegrate(["file"], ownID: Self.own) }?.kind == .reservedScheme)
        #expect(Self.failure { () throws(ServiceFailure) in try broker.schemesToIntegrate(["nothing"], ownID: Self.own) }
                == ServiceFailure(.noHandler, "no application handles 'nothing'; nothing to route through SchemeBridge"))
        #expect(Self.failure { () throws(ServiceFailure) in try broker.schemesToIntegrate(["not a scheme"], ownID: Self.own) } != nil)
    }

    @Test func givingBack() throws {
        let broker = Self.broker(XDGTree(dataDirCount: 1))
        #expect(try broker.schemesToGiveBack([]) == nil, "all")
        #expect(try broker.schemesToGiveBack(["TodoList"]) == ["todolist"])
        #expect(Self.failure { () throws(ServiceFailure) in try broker.schemesToGiveBack(["a b"]) } != nil)
    }
}

import DBus
import DBusTestSupport
import Foundation
import SchemeBridgeContract
import Testing

/// A `Response` equal to the one sent last (a run of shares to one target) is sent as an
/// addressed copy of one marshalled signal (`RepeatedResponses`, `EncodedSignal`): each caller
/// still gets exactly one `Response`, from its own request's path, and nobody else hears it.
@Suite struct RepeatedResponseTests {
    @Test func responsesLikeTheLastReachTheirOwnCallerAlone() async throws {
        let f = try ServiceFixture()
        let program = try ShareTests.target(f, "notes")
        try ShareTests.entry(f, "notes.desktop", types: "text/plain;", program: program)
        // A bystander listening for every Response on the bus.
        let bystander = try await Connection.connect(address: f.bus.address)
        defer { bystander.close() }
        let heard = try await bystander.signals(matching: MatchRule(interface: Contract.requestInterface, member: "Response"))

        // Three shares answered alike, each by another client (its own connection): the second
        // and third Responses are copies of one message.
        var paths: [String] = []
        for n in 1...3 {
            let out = try await ShareTests.share(f, #"[{"text": "line \#(n)"}]"#, #"{"target": "notes.desktop:share"}"#)
            let responses = ShareTests.responses(out)
            #expect(responses.count == 1, "share \(n): \(out)\n\(f.serviceLog.suffix(2000))")
            #expect(responses.first?["code"] as? Int == 0 && responses.first?["results"] as? [String: String] == ["target": "notes.desktop:share"], "\(out)")
            let path = try #require(out["path"] as? String)
            #expect(responses.first?["from"] as? String == path, "share \(n)'s Response came from another path: \(out)")
            paths.append(path)
        }
        #expect(Set(paths).count == 3, "\(paths)")

        // Had a Response been broadcast, the service would have sent it before its answer to this
        // Ping, and the bus keeps one sender's order: the bystander would read it before the mark,
        // a broadcast the test sends after the answer.
        let service = try BusName(try await BusDriver(bystander).nameOwner(ServiceFixture.name))
        _ = try await bystander.call(destination: service, path: ObjectPath(ServiceFixture.path), interface: "org.freedesktop.DBus.Peer", member: "Ping")
        try bystander.emit(path: "/mark", interface: Contract.requestInterface, member: "Response", [.uint32(9), .vardict([:])])
        var overheard: [Message] = []
        for await m in heard {
            if m.path?.rawValue == "/mark" { break }
            overheard.append(m)
        }
        #expect(overheard.isEmpty, "a bystander heard \(overheard)")
    }
}

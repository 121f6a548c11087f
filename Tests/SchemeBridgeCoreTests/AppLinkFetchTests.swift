import Foundation
import Testing
@testable import SchemeBridgeCore

/// A local HTTPS server (python3 http.server + ssl) with a certificate from a CA made by openssl
/// here, reached through `[AppLinks] Resolve` and `CAFile`: what the real fetcher (libcurl)
/// makes of each answer.
final class AssetLinksServer: @unchecked Sendable {
    let root: String
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    let port: Int
    let caFile: String
    /// Every host the certificate names (`*.applinks.test`).
    static let domain = "applinks.test"

    init() throws {
        var template = Array("\(NSTemporaryDirectory())/schemebridge-applinks-XXXXXX".utf8CString)
        _ = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        root = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        caFile = root + "/ca.pem"
        let ssl = root + "/tls"
        try FileManager.default.createDirectory(atPath: ssl, withIntermediateDirectories: true)
        try "subjectAltName=DNS:*.\(Self.domain)\n".write(toFile: ssl + "/san", atomically: false, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for step in [["req", "-x509"] + ec + ["-keyout", ssl + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=SchemeBridge test CA"],
                     ["req"] + ec + ["-keyout", ssl + "/server.key", "-out", ssl + "/server.csr", "-subj", "/CN=*.\(Self.domain)"],
                     ["x509", "-req", "-in", ssl + "/server.csr", "-CA", caFile, "-CAkey", ssl + "/ca.key", "-CAcreateserial",
                      "-out", ssl + "/server.pem", "-days", "2", "-extfile", ssl + "/san"]] {
            let r = try run("/usr/bin/openssl", step, environment: ["PATH": "/usr/bin:/bin"])
            guard r.status == 0 else { throw ServerError(message: "openssl \(step[0]): \(r.stderr)") }
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Scripts.path("assetlinks-server.py"), root + "/sites", ssl + "/server.pem", ssl + "/server.key"]
        process.standardInput = input
        process.standardOutput = output
        try FileManager.default.createDirectory(atPath: root + "/sites", withIntermediateDirectories: true)
        try process.run()
        // The first line is the port (the read blocks until the server listens).
        var line = [UInt8]()
        while true {
            let b = output.fileHandleForReading.readData(ofLength: 1)
            guard let c = b.first else { throw ServerError(message: "the server exited before listening") }
            if c == 0x0A { break }
            line.append(c)
        }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else { throw ServerError(message: "no port") }
        port = p
    }

    deinit {
        // Closing its stdin ends the server (a SIGTERM may be blocked in what it inherited).
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: root)
    }

    struct ServerError: Error { let message: String }

    /// Serves `body` as `https://HOST/.well-known/assetlinks.json`.
    func serve(_ host: String, _ body: String, status: String? = nil, headers: String? = nil, hold: Bool = false) {
        let base = root + "/sites/" + host
        try! FileManager.default.createDirectory(atPath: base + "/.well-known", withIntermediateDirectories: true)
        try! body.write(toFile: base + "/.well-known/assetlinks.json", atomically: false, encoding: .utf8)
        if let status { try! status.write(toFile: base + "/status", atomically: false, encoding: .utf8) }
        if let headers { try! headers.write(toFile: base + "/headers", atomically: false, encoding: .utf8) }
        if hold { _ = FileManager.default.createFile(atPath: base + "/hold", contents: nil) }
    }

    /// Lets held requests go.
    func release() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
    }

    /// The config that reaches `hosts` here and trusts the test CA.
    func config(_ hosts: [String], timeout: Int = 10) -> AppLinkConfig {
        var c = AppLinkConfig()
        c.caFile = caFile
        c.timeout = timeout
        for h in hosts { c.resolve[h] = "127.0.0.1:\(port)" }
        return c
    }

    static func statement(_ appID: String) -> String {
        """
        [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "freedesktop_app", "app_id": "\(appID)"}}]
        """
    }
}

@Suite(.serialized) struct AppLinkFetchTests {
    let server: AssetLinksServer
    init() throws { server = try AssetLinksServer() }

    @Test func aHostThatNamesTheAppEndorsesIt() throws {
        let host = "ok.applinks.test"
        server.serve(host, AssetLinksServer.statement("org.example.Todo"), headers: "Cache-Control: public, max-age=3600\n")
        let r = AppLinkFetcher().fetch(host: host, config: server.config([host]), now: 1000)
        #expect(r.failure == nil, "\(r.failure ?? "")")
        #expect(r.apps == ["org.example.Todo"] && r.status == 200)
        #expect(r.address == "127.0.0.1:\(server.port)" && r.source == "https://ok.applinks.test/.well-known/assetlinks.json")
        #expect(r.expires == 1000 + 3600, "the response's max-age")
    }

    @Test func answersThatEndorseNothing() throws {
        let cases: [(host: String, status: String?, body: String, expected: String)] = [
            ("missing.applinks.test", "404", "", "HTTP 404"),
            ("moved.applinks.test", "301 https://ok.applinks.test/.well-known/assetlinks.json", "", "HTTP 301: a redirect to https://ok.applinks.test/.well-known/assetlinks.json (never followed)"),
            ("large.applinks.test", nil, "[" + String(repeating: " ", count: 128 * 1024) + "]", "the file is larger than 128 KiB"),
            ("broken.applinks.test", nil, "{not json", "malformed: not JSON"),
        ]
        for c in cases {
            server.serve(c.host, c.body, status: c.status)
            let r = AppLinkFetcher().fetch(host: c.host, config: server.config([c.host, "ok.applinks.test"]), now: 1000)
            #expect(r.apps.isEmpty && (r.failure ?? "").hasPrefix(c.expected), "\(c.host): \(r.failure ?? "nil")")
            #expect(r.expires == 1000 + 60, "a failure is tried again after a minute")
        }
        let wrong = "wrongid.applinks.test"
        server.serve(wrong, AssetLinksServer.statement("org.example.Other"))
        let r = AppLinkFetcher().fetch(host: wrong, config: server.config([wrong]), now: 1000)
        #expect(r.failure == nil && r.apps == ["org.example.Other"], "read, naming another app")
    }

    @Test func aCertificateThatIsNotTheHostsOrNotTrustedIsRefused() throws {
        // The certificate names *.applinks.test only.
        let host = "elsewhere.example"
        server.serve(host, AssetLinksServer.statement("org.example.Todo"))
        let r = AppLinkFetcher().fetch(host: host, config: server.config([host]), now: 1000)
        #expect(r.apps.isEmpty && (r.failure ?? "").hasPrefix("not fetched: SSL peer certificate"), "\(r.failure ?? "")")
        // Without the test CA the server is not trusted at all.
        let ok = "untrusted.applinks.test"
        server.serve(ok, AssetLinksServer.statement("org.example.Todo"))
        var systemOnly = server.config([ok])
        systemOnly.caFile = nil
        let u = AppLinkFetcher().fetch(host: ok, config: systemOnly, now: 1000)
        #expect(u.apps.isEmpty && (u.failure ?? "").hasPrefix("not fetched:"), "\(u.failure ?? "")")
    }

    @Test func aServerThatHoldsTheRequestTimesOut() throws {
        let host = "slow.applinks.test"
        server.serve(host, AssetLinksServer.statement("org.example.Todo"), hold: true)
        defer { server.release() }
        let r = AppLinkFetcher().fetch(host: host, config: server.config([host], timeout: 1), now: 1000)
        #expect(r.apps.isEmpty && r.failure == "no answer within 1 s", "\(r.failure ?? "")")
    }

    /// The verifier in the background, the states over a registry, and an open never waiting:
    /// resolve answers from what is known while a fetch is held.
    @Test func verificationRunsInTheBackgroundAndResolvingNeverWaits() async throws {
        let t = XDGTree(dataDirCount: 1)
        let host = "todo.applinks.test"
        t.entry(1, "org.example.Todo.desktop", extra: "X-SchemeBridge-AppLinks=\(host);\nX-SchemeBridge-AppLinks-Paths=!/help/*;\n")
        server.serve(host, AssetLinksServer.statement("org.example.Todo"), hold: true)
        var env = t.environment
        env["XDG_CACHE_HOME"] = t.root + "/cache"
        let config = server.config([host])
        let links = AppLinks(registry: t.registry(), environment: env, config: { config })
        let verifier = AppLinkVerifier(links: links)
        #expect(verifier.refresh() == [host])
        // Held by the server: the link is decided from what is known (nothing yet).
        let url = try SchemeURL("https://\(host)/u/1")
        #expect(links.resolve(url).state == .none)
        server.release()
        let record = await verifier.verify(host)
        #expect(record.apps == ["org.example.Todo"])
        #expect(links.resolve(url).state == .verified)
        #expect(links.resolve(try SchemeURL("https://\(host)/help/1")).state == .none, "an excluded path")
        #expect(verifier.refresh().isEmpty, "nothing is due while the record counts")
        let cached = try String(contentsOfFile: t.root + "/cache/schemebridge/applinks", encoding: .utf8)
        #expect(cached.contains("[\(host)]") && cached.contains("Apps=org.example.Todo;"))
    }
}

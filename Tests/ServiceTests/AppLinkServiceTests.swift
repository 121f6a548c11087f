import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Verified app links through the service (issue 41): a local HTTPS server (python3 http.server
/// + ssl, `Tests/SchemeBridgeCoreTests/Scripts/assetlinks-server.py`) with a CA made by openssl
/// here, reached through `[AppLinks] Resolve` and `CAFile`; the service's `VerifyLinkHost`,
/// `ResolveLink`, `SetLinkApp` and `universal-links-only`, and `schemebridge links`.
@Suite(.serialized) struct AppLinkServiceTests {
    /// The HTTPS side: a CA, a certificate for `*.applinks.test`, the server.
    final class Server: @unchecked Sendable {
        let root: URL
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private(set) var port = 0
        var caFile: String { root.appendingPathComponent("ca.pem").path }

        init() async throws {
            root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-applinks-\(UUID().uuidString.prefix(8))")
            let tls = root.appendingPathComponent("tls").path
            try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("sites"), withIntermediateDirectories: true)
            try "subjectAltName=DNS:*.applinks.test\n".write(toFile: tls + "/san", atomically: false, encoding: .utf8)
            let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            for step in [["req", "-x509"] + ec + ["-keyout", tls + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=SchemeBridge test CA"],
                         ["req"] + ec + ["-keyout", tls + "/server.key", "-out", tls + "/server.csr", "-subj", "/CN=*.applinks.test"],
                         ["x509", "-req", "-in", tls + "/server.csr", "-CA", caFile, "-CAkey", tls + "/ca.key", "-CAcreateserial",
                          "-out", tls + "/server.pem", "-days", "2", "-extfile", tls + "/san"]] {
                let r = try await Tools.run(["/usr/bin/openssl"] + step)
                #expect(r.status == 0, "openssl: \(r.stderr)")
            }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [Built.packageRoot.appendingPathComponent("Tests/SchemeBridgeCoreTests/Scripts/assetlinks-server.py").path,
                                 root.appendingPathComponent("sites").path, tls + "/server.pem", tls + "/server.key"]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var line = [UInt8]()
            while let c = output.fileHandleForReading.readData(ofLength: 1).first, c != 0x0A { line.append(c) }
            port = try #require(Int(String(decoding: line, as: UTF8.self)), "the server's port")
        }

        func stop() {
            // Closing its stdin ends the server.
            try? input.fileHandleForWriting.close()
            if process.isRunning { process.waitUntilExit() }
            try? FileManager.default.removeItem(at: root)
        }

        func serve(_ host: String, apps: [String]) throws {
            let dir = root.appendingPathComponent("sites/\(host)/.well-known")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let statements = apps.map { #"{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "freedesktop_app", "app_id": "\#($0)"}}"# }
            try ("[" + statements.joined(separator: ",") + "]").write(to: dir.appendingPathComponent("assetlinks.json"), atomically: true, encoding: .utf8)
        }

        func config(_ hosts: [String], timeout: Int = 10) -> String {
            "[AppLinks]\nCAFile=\(caFile)\nResolve=" + hosts.map { "\($0)=127.0.0.1:\(port);" }.joined() + "\nTimeout=\(timeout)\n"
        }

        /// Holds every request for `host` until ``release()``.
        func hold(_ host: String) throws {
            let dir = root.appendingPathComponent("sites/\(host)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data().write(to: dir.appendingPathComponent("hold"))
        }

        /// Lets held requests (and any later ones) go.
        func release() {
            input.fileHandleForWriting.write(Data("go\n".utf8))
        }
    }

    /// `OpenURLWithOptions(url, {"universal-links-only": <true>})` through gdbus.
    static func openAppLink(_ f: ServiceFixture, _ url: String) async throws -> ProcessResult {
        try await f.gdbus("OpenURLWithOptions", url, "{'universal-links-only': <true>}")
    }

    @Test func aVerifiedAppOpensItsLinksAndAUserWritableClaimNeverIsVerified() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await Server()
        defer { server.stop() }
        let host = "todo.applinks.test"
        let todo = try f.recorder("todo")
        let grabber = try f.recorder("grabber")
        // The system's entry (a protected directory outside $HOME) and one in the user's data dir,
        // both named by the host.
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(todo) %u\nX-SchemeBridge-AppLinks=\(host);\nX-SchemeBridge-AppLinks-Paths=!/help/*;", system: true)
        try f.entry("org.example.Grabber.desktop", "Name=Grabber\nExec=\(grabber) %u\nX-SchemeBridge-AppLinks=\(host);")
        try server.serve(host, apps: ["org.example.Grabber", "org.example.Todo"])
        try f.writeConfig(server.config([host]))

        let verified = try await CLITests.cli(f, "links", "verify", host, "--json")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(#""apps":["org.example.Grabber","org.example.Todo"]"#), "\(verified.stdout)")
        #expect(verified.stdout.contains(#""address":"127.0.0.1:\#(server.port)""#) && verified.stdout.contains(#""status":200"#), "\(verified.stdout)")

        let url = "https://\(host)/u/42?x=1"
        let explained = try await CLITests.cli(f, "links", "explain", url, "--json")
        #expect(explained.stdout.contains(#""app":"org.example.Todo.desktop","state":"verified""#), "\(explained.stdout)")
        #expect(explained.stdout.contains(#""claimants":["org.example.Grabber.desktop","org.example.Todo.desktop"]"#), "\(explained.stdout)")

        let opened = try await Self.openAppLink(f, url)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(await f.recordedArgv("todo") == [url], "the app gets the URL byte for byte")

        // An excluded path: nobody holds it, nothing opens.
        let help = try await Self.openAppLink(f, "https://\(host)/help/1")
        #expect(help.status != 0 && help.stderr.contains("io.github.schemebridge.SchemeBridge1.Error.NotAppLink"), "\(help.stderr)")
        let listed = try await CLITests.cli(f, "links", "list", "--json")
        #expect(listed.stdout.contains(#""app":"org.example.Grabber.desktop","pattern":"todo.applinks.test","host":"todo.applinks.test","state":"none","trusted":false"#),
                "the user-writable entry is named by the host, yet never verified: \(listed.stdout)")

        // The user's choice makes it `selected`, for every path it claims.
        let set = try await CLITests.cli(f, "links", "set", host, "org.example.Grabber")
        #expect(set.status == 0, "\(set.stderr)")
        let chosen = try await CLITests.cli(f, "links", "explain", "https://\(host)/help/1", "--json")
        #expect(chosen.stdout.contains(#""app":"org.example.Grabber.desktop","state":"selected""#), "\(chosen.stdout)")
        #expect(try await Self.openAppLink(f, "https://\(host)/help/1").status == 0)
        #expect(await f.recordedArgv("grabber") == ["https://\(host)/help/1"])
        #expect(try await CLITests.cli(f, "links", "unset", host).status == 0)
        let back = try await CLITests.cli(f, "links", "explain", "https://\(host)/help/1", "--json")
        #expect(back.stdout.contains(#""app":null,"state":"none""#), "\(back.stdout)")
    }

    @Test func aLinkNoAppHoldsOpensNothingWithUniversalLinksOnly() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let server = try await Server()
        defer { server.stop() }
        let host = "other.applinks.test"
        let todo = try f.recorder("todo")
        try f.entry("org.example.Todo.desktop", "Name=Todo\nExec=\(todo) %u\nX-SchemeBridge-AppLinks=\(host);", system: true)
        try server.serve(host, apps: ["org.example.SomeoneElse"])
        try f.writeConfig(server.config([host]))
        let verified = try await CLITests.cli(f, "links", "verify", host, "--json")
        #expect(verified.stdout.contains(#""apps":["org.example.SomeoneElse"]"#), "\(verified.stdout)")
        let r = try await Self.openAppLink(f, "https://\(host)/x")
        #expect(r.status != 0 && r.stderr.contains("Error.NotAppLink"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("todo.argv").path), "nothing was opened")
        // Not claimed at all.
        let none = try await Self.openAppLink(f, "https://unclaimed.applinks.test/")
        #expect(none.stderr.contains("Error.NotAppLink"), "\(none.stderr)")
        let notClaimed = try await CLITests.cli(f, "links", "verify", "unclaimed.applinks.test")
        #expect(notClaimed.status == 2 && notClaimed.stderr.contains("no installed app declares"), "\(notClaimed.stderr)")
    }
}

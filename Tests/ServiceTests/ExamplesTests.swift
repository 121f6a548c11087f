import Foundation
import Testing
import DBusTestSupport

/// Issue 27, item 5: the app-developer examples in examples/, built and run as their README says,
/// against a private bus with the service: each opens a URL (the handler gets it), asks the type
/// of a file by passing its descriptor, and maps a D-Bus error to schemebridge's exit status.
/// Their toolchains are Debian packages that scripts/deps.sh installs (libglib2.0-dev, gcc,
/// python3-gi, qtbase5-dev, g++, cargo, rustc, librust-zbus-dev).
@Suite struct ExamplesTests {
    static let examples = Built.packageRoot.appendingPathComponent("examples")
    /// zbus and its crates, compiled once and kept in .build between runs (the example itself is rebuilt).
    static let rustTarget = Built.packageRoot.appendingPathComponent(".build/rust-example").path

    /// A fixture with a `todolist` handler that records its argv, and a text file.
    static func world() throws -> (ServiceFixture, file: String, env: [String: String]) {
        let f = try ServiceFixture()
        try f.entry("todo.desktop", "Name=Todo\nExec=\(try f.recorder("todo")) %u\nMimeType=x-scheme-handler/todolist;")
        let file = f.root.appendingPathComponent("notes.txt").path
        try "milk\neggs\n".write(toFile: file, atomically: true, encoding: .utf8)
        return (f, file, ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "DBUS_STARTER_ADDRESS": "", "HOME": f.root.path])
    }

    /// A new directory for an example's build. The build comes before the fixture, so that a
    /// compiler does not hold one of the end-to-end slots (the bus and service wait their turn).
    static func buildDirectory(_ example: String) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("schemebridge-example-\(example)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        return out
    }

    /// Runs an example's program: opens a URL and reads a file's type; then a scheme nobody handles.
    static func check(_ program: [String], _ f: ServiceFixture, file: String, env: [String: String]) async throws {
        let run = try await Tools.run(program + ["todolist://add?task=milk", file], environment: env)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout == "can open todolist://add?task=milk: yes\nopened todolist://add?task=milk\ntype of notes.txt: text/plain\n", "\(run.stdout)\(run.stderr)")
        #expect(await f.recordedArgv("todo") == ["todolist://add?task=milk"])
        let none = try await Tools.run(program + ["nothing://x"], environment: env)
        #expect(none.status == 3 && none.stderr.contains("io.github.schemebridge.SchemeBridge1.Error.NoHandler"), "\(none.status) \(none.stderr)")
        let bad = try await Tools.run(program + ["todolist://a\u{1}b"], environment: env)
        #expect(bad.status == 1 && bad.stderr.contains("io.github.schemebridge.SchemeBridge1.Error.InvalidURL"), "\(bad.status) \(bad.stderr)")
    }

    @Test func cWithAProxyFromGdbusCodegen() async throws {
        let out = try Self.buildDirectory("c")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let build = try await Tools.run(["/usr/bin/make", "-C", Self.examples.appendingPathComponent("c").path, "OUT=" + out])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        // The UnixFD annotation made ContentTypeForFile take a GUnixFDList.
        let header = (try? String(contentsOfFile: out + "/schemebridge-generated.h", encoding: .utf8)) ?? ""
        #expect(header.range(of: #"sb_scheme_bridge1_call_content_type_for_file_sync \([^;]*GUnixFDList"#, options: .regularExpression) != nil)
        let (f, file, env) = try Self.world()
        defer { f.stop() }
        try await Self.check([out + "/open-url"], f, file: file, env: env)
    }

    @Test func qtWithQtDBus() async throws {
        let out = try Self.buildDirectory("qt")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let build = try await Tools.run(["/usr/bin/make", "-C", Self.examples.appendingPathComponent("qt").path, "OUT=" + out])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let (f, file, env) = try Self.world()
        defer { f.stop() }
        try await Self.check([out + "/open-url-qt"], f, file: file, env: env)
    }

    /// zbus 1.9 (Debian 12's), built offline from /usr/share/cargo/registry by the example's build.sh.
    @Test func rustWithZbus() async throws {
        let out = try Self.buildDirectory("rust")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let build = try await Tools.run(["/bin/sh", Self.examples.appendingPathComponent("rust/build.sh").path, out],
                                        environment: ["HOME": out, "CARGO_TARGET_DIR": Self.rustTarget],
                                        timeout: .seconds(3600))  // ~75 s of CPU the first time, long beside CPU hogs
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let (f, file, env) = try Self.world()
        defer { f.stop() }
        try await Self.check([out + "/open-url-rust"], f, file: file, env: env)
    }

    @Test func pythonWithPyGObject() async throws {
        let (f, file, env) = try Self.world()
        defer { f.stop() }
        try await Self.check(["/usr/bin/python3", Self.examples.appendingPathComponent("python/open_url.py").path], f, file: file, env: env)
    }
}

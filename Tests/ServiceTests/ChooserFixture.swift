import Foundation
import DBusTestSupport
import SchemeBridgeContract

/// Choosing tests' helpers on a ``ServiceFixture``: two handlers of `todo` (Alpha `a.desktop`,
/// the default by id order, and Beta `b.desktop`), scripted chooser programs, and callers that
/// are apps of their own (copies of python under other names).
extension ServiceFixture {
    /// Installs recording handlers `a.desktop` (Alpha) and `b.desktop` (Beta) for `todo`, and
    /// `c.desktop` (Gamma) when asked.
    func installTodoHandlers(gamma: Bool = false) throws {
        try entry("a.desktop", "Name=Alpha\nIcon=alpha\nExec=\(try recorder("a")) %u\nMimeType=x-scheme-handler/todo;")
        try entry("b.desktop", "Name=Beta\nExec=\(try recorder("b")) %u\nMimeType=x-scheme-handler/todo;")
        if gamma { try entry("c.desktop", "Name=Gamma\nExec=\(try recorder("c")) %u\nMimeType=x-scheme-handler/todo;") }
    }

    /// `a`, `b` and `c.desktop` for `todo`; app `app-one` remembers `b.desktop` (it chose
    /// "always" in the chooser) and a `[Routes]` line sends `todo` from `app-two` to `c.desktop`.
    /// Returns the two apps' ids.
    func installTodoWithChoiceAndRoute() async throws -> (one: String, two: String) {
        try installTodoHandlers(gamma: true)
        let one = try pythonNamed("app-one"), two = try pythonNamed("app-two")
        try writeConfig("""
            [Chooser]
            Command=\(try chooser("always-beta", "printf 'b.desktop\\talways\\n'"))
            [Routes]
            todo from \(two)=c.desktop
            """)
        guard try await open("todo://ask", from: one) == "opened b.desktop" else { throw ToolError("app-one did not remember b.desktop") }
        return (one, two)
    }

    /// A chooser program in `bin/` speaking the dialogs' message through the line-chooser adapter
    /// (Clients/Support/line-chooser.py): `body` is a shell script that reads the candidates as
    /// `id<TAB>name<TAB>icon[<TAB>kind]` lines and prints `ID[<TAB>always]`; what each run was asked
    /// (those lines and the question as `SCHEMEBRIDGE_CHOOSER_*=` lines) goes to `records/<name>.seen`.
    @discardableResult
    func chooser(_ name: String, _ body: String) throws -> String {
        let path = bin.appendingPathComponent(name).path
        let script = records.appendingPathComponent("\(name).body").path
        let seen = records.appendingPathComponent("\(name).seen").path
        try body.write(toFile: script, atomically: true, encoding: .utf8)
        try """
            #!/bin/sh
            exec \(Tools.systemPython) '\(Clients.path("Support/line-chooser"))' '\(seen)' '\(script)'
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// What chooser `name` saw (each run's stdin and environment, ended by `--`).
    func chooserSaw(_ name: String) -> String {
        (try? String(contentsOf: records.appendingPathComponent("\(name).seen"), encoding: .utf8)) ?? ""
    }

    /// How many times chooser `name` ran.
    func chooserRuns(_ name: String) -> Int { chooserSaw(name).components(separatedBy: "--\n").count - 1 }

    /// `OpenURLWithOptions(url, options)` from `python` (a caller of its own; `Clients/Support/open-url.py`): prints
    /// `opened <handler>` or `error <ErrorName> <message>`. `mode` is `ask`, `plain` (OpenURL) or a
    /// desktop id for the `handler` option.
    func open(_ url: String, from python: String, _ mode: String = "ask") async throws -> String {
        let r = try await Tools.run([python, Clients.path("Support/open-url"), url, mode],
                                    environment: Clients.serviceNames.merging(["SB_BUS": bus.address]) { $1 })
        return (r.stdout + r.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until handler `name` recorded exactly `url` as its argv.
    func handled(_ name: String, _ url: String) async -> Bool {
        let file = records.appendingPathComponent("\(name).argv")
        return await Tools.eventually {
            (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) == url + "\0" } ?? false
        }
    }
}

import Foundation
import Testing
import DBusTestSupport

/// `make run`'s pasteboard demo as shipped (desktop/demo/person-editor and person-viewer, seed
/// 001's flow): the editor (python3-dbus) writes a person and a photo to a unique persistent
/// pasteboard and opens viewer://?ReadPasteboardData#<name> with the pasteboard option; the viewer
/// (a shell script with the CLI) reads both, prints them and deletes the pasteboard; the editor
/// sees Deleted.
@Suite struct PasteboardDemoTests {
    struct Demo {
        let w: PasteboardCLIWorld
        let editor: String
        let log: URL
        let photo: String

        func stop() {
            w.f.stop()
            try? FileManager.default.removeItem(at: log)
        }
    }

    /// The demo apps copied under the fixture's HOME (where an entry may name the program that
    /// runs: the editor is org.example.PersonEditor) and installed from their shipped entries.
    static func install() throws -> Demo {
        // The viewer logs to $SCHEMEBRIDGE_DEMO_LOG, which it inherits from the service.
        let log = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-demo-\(UUID().uuidString.prefix(8)).log")
        let w = try PasteboardCLIWorld(serviceEnvironment: ["SCHEMEBRIDGE_DEMO_LOG": log.path])
        let source = Built.packageRoot.appendingPathComponent("desktop/demo")
        let apps = w.f.root.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
        for program in ["person-editor", "person-viewer"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(program), to: apps.appendingPathComponent(program))
        }
        for entry in ["org.example.PersonEditor", "org.example.PersonViewer"] {
            let text = try String(contentsOf: source.appendingPathComponent("\(entry).desktop.in"), encoding: .utf8)
            try text.replacingOccurrences(of: "@demodir@", with: apps.path)
                .write(to: w.f.applications.appendingPathComponent("\(entry).desktop"), atomically: true, encoding: .utf8)
        }
        return Demo(w: w, editor: apps.appendingPathComponent("person-editor").path, log: log,
                    photo: source.appendingPathComponent("launch-images/org.example.TodoList/Default-todolist.png").path)
    }

    @Test func theEditorHandsAPersonToTheViewerWhichPrintsItAndDeletesThePasteboard() async throws {
        let d = try Self.install()
        defer { d.stop() }
        let run = try await Tools.run([d.editor, "--first", "Ada", "--last", "Lovelace", "--born", "1815-12-10", "--photo", d.photo, "--timeout", "120"],
                                      environment: d.w.environment)
        #expect(run.status == 0, "\(run.status) \(run.stdout)\(run.stderr)\n\(d.w.f.serviceLog)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let name = lines.first { $0.hasPrefix("person-editor: created persistent pasteboard ") }.map { String($0.split(separator: " ").last!) } ?? ""
        #expect(name.hasPrefix("pasteboard-"), "\(run.stdout)")
        #expect(lines.contains { $0.contains("opened viewer://?ReadPasteboardData#\(name) with org.example.PersonViewer.desktop") }, "\(run.stdout)")
        #expect(lines.last?.contains("deleted the pasteboard (Deleted signal): done") == true, "\(run.stdout)")

        // The editor returned on Deleted, which the viewer's delete sends before it logs it.
        var viewer = ""
        _ = await Tools.eventually {
            viewer = (try? String(contentsOf: d.log, encoding: .utf8)) ?? ""
            return viewer.contains("person-viewer: deleted pasteboard")
        }
        // (By the editor's identity: a program calling over D-Bus is known by its executable, here python.)
        #expect(viewer.contains("person-viewer: asked to read pasteboard \(name) by "), "\(viewer)")
        #expect(viewer.contains("\"first-name\": \"Ada\"") && viewer.contains("\"package-version\": 1"), "\(viewer)")
        #expect(viewer.contains("the photo (item 1, image/png): 8508 bytes, 320x200 pixels"), "\(viewer)")
        #expect(viewer.contains("person-viewer: deleted pasteboard \(name)"), "\(viewer)")
        // Its storage is freed.
        #expect(await Tools.eventually { d.w.storedPasteboards.isEmpty }, "\(d.w.storedPasteboards)")
    }

    @Test func withNoViewerTheEditorDeletesWhatItWrote() async throws {
        let d = try Self.install()
        defer { d.stop() }
        let run = try await Tools.run([d.editor, "--scheme", "noviewer", "--photo", d.photo], environment: d.w.environment)
        #expect(run.status == 3 && run.stdout.contains("cannot open noviewer://?ReadPasteboardData#"), "\(run.status) \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("deleting the pasteboard"), "\(run.stdout)")
        #expect(await Tools.eventually { d.w.storedPasteboards.isEmpty }, "\(d.w.storedPasteboards)")
    }
}

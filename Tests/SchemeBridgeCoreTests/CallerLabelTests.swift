import Testing
@testable import SchemeBridgeCore

/// The label a chooser shows for the asking app (``CallerLabel``): entry names for app ids,
/// scripts for interpreters, file names for programs.
@Suite struct CallerLabelTests {
    @Test func appIDsAreNamedByTheirEntry() {
        #expect(CallerLabel.label("org.example.Photos", pid: nil) { $0 == "org.example.Photos" ? "Photos" : nil } == "Photos")
        #expect(CallerLabel.label("org.example.Gone", pid: nil) { _ in nil } == "org.example.Gone")
        #expect(CallerLabel.label(nil, pid: 1) { _ in "x" } == "")
        #expect(CallerLabel.label("evil\u{1B}[31m\nname", pid: nil) { _ in nil } == "evil [31m name")
    }

    @Test func programsAreNamedByTheirFileName() {
        #expect(CallerLabel.label("/opt/tools/photo-tool", pid: nil) { _ in nil } == "photo-tool")
        // An interpreter whose command line cannot be read is named as itself.
        #expect(CallerLabel.label("/usr/bin/python3.11", pid: nil) { _ in nil } == "python3.11")
    }

    @Test func interpretersAreKnownWithTheirVersions() {
        for name in ["python3", "python3.11", "python", "perl5.36", "bash", "sh", "node"] { #expect(CallerLabel.isInterpreter(name), "\(name)") }
        for name in ["python3-config", "photo-tool", "shotwell", "pythonista", "3.11"] { #expect(!CallerLabel.isInterpreter(name), "\(name)") }
    }

    @Test func theScriptIsTheFirstArgumentThatIsNotAnOption() {
        #expect(CallerLabel.script(in: ["/home/me/bin/share-photos.py", "--all"]) == "share-photos.py")
        #expect(CallerLabel.script(in: ["-s", "-E", "/usr/share/app/main.py"]) == "main.py")
        #expect(CallerLabel.script(in: ["-m", "photos.share", "x"]) == "photos.share")
        #expect(CallerLabel.script(in: ["-c", "import x"]) == nil)
        #expect(CallerLabel.script(in: []) == nil)
    }
}

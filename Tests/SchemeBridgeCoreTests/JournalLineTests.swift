import Glibc
import Testing
@testable import SchemeBridgeCore

/// The service's log lines (``JournalLine``): journal priorities only where standard error is the
/// journal stream, one entry a line, metadata as given.
@Suite struct JournalLineTests {
    @Test func journalLinesCarryThePriorityAndStayOneLine() {
        #expect(JournalLine.line(journal: true, level: "warning", label: "schemebridged", message: "a\nb", metadata: [("z", "1"), ("a", "2")])
                == "<4>schemebridged: a b a=2 z=1")
        #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].map(JournalLine.priority) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func otherLinesCarryTheTimeAndLevel() {
        let line = JournalLine.line(journal: false, level: "info", label: "x", message: "hello\nthere", metadata: [])
        #expect(line.hasSuffix(" info x: hello\nthere"), "\(line)")
        #expect(line.hasPrefix(String(JournalLine.timestamp().prefix(10))))
    }

    @Test func theJournalStreamMustBeStandardErrorItself() {
        var st = stat()
        #expect(fstat(2, &st) == 0)
        #expect(JournalLine.standardErrorIsJournal("\(st.st_dev):\(st.st_ino)"))
        #expect(!JournalLine.standardErrorIsJournal("\(st.st_dev):\(st.st_ino &+ 1)"))
        #expect(!JournalLine.standardErrorIsJournal(nil))
        #expect(!JournalLine.standardErrorIsJournal("garbage"))
    }
}

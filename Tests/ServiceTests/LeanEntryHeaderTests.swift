import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeCLIKit

/// Issue 36, item 4: the C lean entry point takes the contract's names, the full command line's
/// name and every exit status from one header, `Sources/schemebridge-lean/contract.h`, written
/// from the Swift contract (``LeanEntryHeader``). The checked-in header must be that text: a
/// contract change that is not carried into it fails here (`make lean-header` writes it again).
@Suite struct LeanEntryHeaderTests {
    static var header: URL { Built.packageRoot.appendingPathComponent("Sources/schemebridge-lean/contract.h") }

    @Test func theCheckedInHeaderIsTheContracts() throws {
        if ProcessInfo.processInfo.environment["SCHEMEBRIDGE_WRITE_LEAN_HEADER"] == "1" {
            try LeanEntryHeader.text.write(to: Self.header, atomically: true, encoding: .utf8)
        }
        let checkedIn = try String(contentsOf: Self.header, encoding: .utf8)
        #expect(checkedIn == LeanEntryHeader.text, "Sources/schemebridge-lean/contract.h is not what the contract says: run `make lean-header`")
    }

    /// What the header says, read back: every contract error has its status, as the full
    /// command line's (a new error in the contract reaches the C program through it).
    @Test func everyContractErrorHasTheFullCommandLinesStatus() {
        let text = LeanEntryHeader.text
        #expect(text.contains("#define SERVICE \"io.github.schemebridge.SchemeBridge1\""))
        #expect(text.contains("{\"NotAppLink\", NO_HANDLER},"), "\(text)")
        #expect(text.contains("{\"InvalidURL\", USAGE},") && text.contains("{\"Cancelled\", CANCELLED},") && text.contains("{\"NoSuchType\", NOT_FOUND},"))
        #expect(text.contains("enum status { SUCCESS = 0, USAGE = 1, NOT_FOUND = 2, NO_HANDLER = 3, FAILED = 4, CANCELLED = 5 };"))
    }
}

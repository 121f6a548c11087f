import Foundation
import Testing
@testable import SchemeBridgeCore

/// Every failure kind names an error the contract documents, so the daemon's one-line mapping
/// gives a caller the error docs/CONTRACT.md promises.
@Suite struct ServiceFailureTests {
    static let contract = (try? String(contentsOf: ConfigReferenceTests.root.appendingPathComponent("docs/CONTRACT.md"), encoding: .utf8)) ?? ""

    @Test func everyKindIsAnErrorOfTheContract() {
        #expect(!Self.contract.isEmpty)
        for kind in ServiceFailure.Kind.allCases {
            if kind.isContractError {
                #expect(Self.contract.contains("`\(kind.rawValue)`") || Self.contract.contains("Error.\(kind.rawValue)"), "\(kind)")
            } else {
                #expect(kind.rawValue.hasPrefix("org.freedesktop.DBus.Error."), "\(kind)")
            }
        }
        #expect(Set(ServiceFailure.Kind.allCases.map(\.rawValue)).count == ServiceFailure.Kind.allCases.count)
    }

    @Test func theOldNamesAreTheOneType() {
        let open: OpenFailure = PasteboardError(.quotaExceeded, "full")
        #expect(open.kind.rawValue == "QuotaExceeded" && open.kind.isContractError && open.description == "full")
        #expect(ServiceFailure(.invalidArgument, "x").kind.rawValue == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(!ServiceFailure.Kind.failed.isContractError)
        #expect(ServiceFailure(RouteError.noTerminal(desktopID: "t")).kind == .launchFailed)
    }
}

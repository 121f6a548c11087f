import Testing
@testable import SchemeBridgeCore

@Test func contractVersionIsOne() {
    #expect(SchemeBridgeCore.contractVersion == 1)
}

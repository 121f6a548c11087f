// swift-tools-version:6.1
// libFuzzer targets for SchemeBridge's input parsers. Built by `make fuzz` with
// `-sanitize=fuzzer,address`; not part of the main package (they have no `main`).
import PackageDescription

let fuzz: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "SchemeBridgeFuzz",
    dependencies: [.package(name: "SchemeBridge", path: "..")],
    targets: [
        .executableTarget(name: "FuzzURL", dependencies: [.product(name: "SchemeBridgeCore", package: "SchemeBridge")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzKeyFile", dependencies: [.product(name: "SchemeBridgeCore", package: "SchemeBridge")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzExec", dependencies: [.product(name: "SchemeBridgeCore", package: "SchemeBridge")], swiftSettings: fuzz),
    ]
)

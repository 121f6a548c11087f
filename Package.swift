// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // Release: every function in a section of its own, so the link can place the start's code
    // together (scripts/link/schemebridged.order) instead of one section per source file.
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

let package = Package(
    name: "SchemeBridge",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "SchemeBridgeContract", targets: ["SchemeBridgeContract"]),
        .library(name: "SchemeBridgeCore", targets: ["SchemeBridgeCore"]),
        .executable(name: "schemebridged", targets: ["schemebridged"]),
        // `schemebridge`, the lean entry point, is C built by the Makefile (Sources/schemebridge-lean:
        // a SwiftPM target would link the Swift runtime); it runs the full command line (target
        // schemebridge) as `schemebridge-cli` for anything but `open URL...`.
        .executable(name: "schemebridge-cli", targets: ["schemebridge"]),
        .executable(name: "schemebridge-splash", targets: ["schemebridge-splash"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // libdbus-1 as a system library; shim.h re-exports the macros Swift cannot import.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // libcurl (OpenSSL flavour): app-link verification fetches over HTTPS with it
        // (SchemeBridgeCore/AppLinks). Its headers only: shim.h loads it at the first fetch
        // (dlopen) and wraps its variadic calls; libidn2 is linked (module.modulemap).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The system funnel: our own threads and the blocking-thread pool, owned descriptors, the one small-file reader, the one JSON reader and writer.
        .target(name: "LinuxSystem", dependencies: ["CLinux"], swiftSettings: strict),
        // The Swift D-Bus layer: names, values, messages, connection, object export.
        .target(name: "DBus", dependencies: ["CDBus", "LinuxSystem", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        // The contract in one place: names, errors, option/result keys, typed signals and calls.
        .target(name: "SchemeBridgeContract", dependencies: ["DBus", "LinuxSystem"], swiftSettings: strict),
        // Core logic: XDG dirs, desktop entries, Exec, mimeapps, registry, the rules. No D-Bus here.
        .target(name: "SchemeBridgeCore", dependencies: ["CLinux", "LinuxSystem", "CCurl"], swiftSettings: strict),
        // Linux process primitives Swift cannot reach directly (posix_spawn with setsid/chdir, pidfd).
        .target(name: "CLinux"),
        // The permission store's table for the portal integration (the core's rules over the bus), for the CLI and the service.
        .target(name: "SchemeBridgePortalStore", dependencies: ["DBus", "SchemeBridgeCore"], swiftSettings: strict),
        // Nearby devices: a typed client of the KDE Connect engine (send, follow, receive).
        .target(name: "SchemeBridgeDevices", dependencies: ["DBus", "LinuxSystem", "SchemeBridgeCore", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        // The session service.
        .executableTarget(
            name: "schemebridged",
            dependencies: [
                "DBus", "LinuxSystem", "SchemeBridgeContract", "SchemeBridgeCore", "SchemeBridgeDevices", "SchemeBridgePortalStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict,
            // Release (make release, make bench): linked by the toolchain's lld with packed relative
            // relocations (DT_RELR, glibc ≥ 2.36: 7 KB instead of 880 KB of `.rela.dyn`, every page
            // of which the loader read at start), without exporting the program's own symbols (the
            // static runtime's `-export-dynamic` put ~300 KB of `.dynsym` and its hash table in every
            // start's pages), and with the C++ library and the unwinder linked in (scripts/link: only
            // what the runtime uses, not libstdc++.so's 1.1 MiB mapped). 3.3 MiB less resident after
            // the first answer, 19.3 → 16.6 MiB at 10,000 entries (docs/PERFORMANCE.md). libdbus is
            // linked in from its archive (the shared one pulled in libsystemd and seven more
            // libraries), and the functions a start runs are placed together in the order a start
            // runs them (scripts/link/schemebridged.order, made by scripts/link/order.sh): the
            // kernel maps 64 KiB around every page a start touches, and the start's code was spread
            // over nearly all of the program's 10.6 MB. A device share's functions come first
            // (scripts/link/share.order, made by scripts/link/share-order.sh): between two shares the
            // engine, the bus and the caller run on the same cores, and a share's ~1,700 functions,
            // spread over 10.8 MB in ~490 pages, were fetched cold each time; together in ~260 pages,
            // the service's CPU per share fell ~20% (docs/perf-notes/layout14.md).
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic",
                                           "-L\(Context.packageDirectory)/scripts/link", "-Xclang-linker", "-static-libgcc",
                                           "-Xlinker", "--remap-inputs=*/libdbus-1.so=\(Context.packageDirectory)/scripts/link/libdbus-1.so",
                                           "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/link/schemebridged.order",
                                           "-Xlinker", "--no-warn-symbol-ordering"],
                                          .when(configuration: .release))]
        ),
        // The command line's plumbing, without the argument parser (no Foundation): the exit
        // statuses, the bus connection and its error advice, opening URLs (the C lean entry point
        // keeps its statuses and messages in step: LeanEntryTests).
        .target(name: "SchemeBridgeCLIKit", dependencies: ["DBus", "LinuxSystem", "SchemeBridgeContract"], swiftSettings: strict),
        // The command-line client (`schemebridge-cli`): every subcommand, like xdg-open, queries, monitor.
        .executableTarget(
            name: "schemebridge",
            dependencies: [
                "CLinux", "DBus", "LinuxSystem", "SchemeBridgeContract", "SchemeBridgeCLIKit",
                // The "not from this device" list (`schemebridge devices`), the user's file, read and written as the service does.
                "SchemeBridgeCore", "SchemeBridgePortalStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Xlib and libpng as system libraries, for the launch-image helper only.
        .systemLibrary(name: "CX11", pkgConfig: "x11", providers: [.apt(["libx11-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // The launch-image helper: a separate process the service spawns per launch, so the
        // service itself never links X.
        .executableTarget(name: "schemebridge-splash", dependencies: ["CX11", "CPNG"], swiftSettings: strict),
        // The Swift side of `make bench`'s layer measurement.
        .executableTarget(name: "schemebridge-bench-service", dependencies: ["DBus"], path: "Benchmarks/SwiftService", swiftSettings: strict),
        // make bench: the least a `schemebridge open` process over the layer must do (no argument parser).
        .executableTarget(name: "schemebridge-open-probe", dependencies: ["DBus", "SchemeBridgeContract"], path: "Benchmarks/OpenProbe", swiftSettings: strict),
        // A private dbus-daemon per test suite, shared by every test target.
        // Test programs are files beside the tests (Clients/, Scripts/), found through Built.packageRoot.
        .target(name: "DBusTestSupport", dependencies: ["DBus", "CLinux", "CX11"], path: "Tests/DBusTestSupport", exclude: ["Scripts"], swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "DBusTestSupport"], exclude: ["Clients"], swiftSettings: strict),
        // Its python3-dbus clients are files in Tests/ServiceTests/Clients, found through Built.packageRoot, and
        // Engines/ holds the C++ the device tests build for their engines (KDEConnectReceivingFix).
        .testTarget(name: "ServiceTests", dependencies: ["DBus", "SchemeBridgeContract", "SchemeBridgeCLIKit", "DBusTestSupport", "CPNG", "SchemeBridgeDevices"],
                    exclude: ["Clients", "Engines"], swiftSettings: strict),
        .testTarget(name: "SchemeBridgeCoreTests", dependencies: ["SchemeBridgeCore", "CLinux", "LinuxSystem"], exclude: ["Scripts"], swiftSettings: strict),
        // Launch-image helper tests on a private Xvfb, with a stand-in handler app that maps a window.
        .executableTarget(name: "splash-test-window", dependencies: ["CX11"], path: "Tests/SplashTestWindow", swiftSettings: strict),
        .testTarget(name: "SplashTests", dependencies: ["DBusTestSupport", "CX11", "CPNG"], swiftSettings: strict),
        // Index-scale benchmark of the core registry (not a test; prints numbers).
        .executableTarget(name: "IndexBench", dependencies: ["SchemeBridgeCore"], path: "Benchmarks/IndexBench", swiftSettings: strict),
        // Content-type detection: per-file time next to gio info and file --mime-type (make bench), and
        // a detect mode for scripts (not a test; prints numbers or types).
        .executableTarget(name: "ContentTypeBench", dependencies: ["SchemeBridgeCore"], path: "Benchmarks/ContentTypeBench", swiftSettings: strict),
    ]
)

import Testing
@testable import SchemeBridgeCore

/// `schemebridged`'s command line (``DaemonOptions``) and `--check-config` (``ConfigCheck``).
@Suite struct DaemonOptionsTests {
    static func parse(_ arguments: [String]) -> DaemonOptions.Request {
        DaemonOptions.parse(arguments, usage: "USAGE", versionText: "schemebridged 9")
    }

    @Test func noArgumentsRunWithTheDefaults() {
        #expect(Self.parse([]) == .run(DaemonOptions()))
        #expect(DaemonOptions().logLevel == "info")
    }

    @Test func everyOptionInBothSpellings() {
        var expected = DaemonOptions()
        expected.address = "unix:path=/tmp/bus"
        expected.replace = true
        expected.maxLaunchRate = 0
        expected.launchBurst = 2.5
        expected.logLevel = "debug"
        #expect(Self.parse(["--address", "unix:path=/tmp/bus", "--replace", "--max-launch-rate", "0", "--launch-burst=2.5", "--log-level=debug"])
                == .run(expected))
        #expect(Self.parse(["--address=unix:path=/tmp/bus", "--replace", "--max-launch-rate=0", "--launch-burst", "2.5", "--log-level", "debug"])
                == .run(expected))
    }

    @Test func helpVersionAndCheckConfig() {
        #expect(Self.parse(["--help"]) == .print("USAGE"))
        #expect(Self.parse(["-h", "--bogus"]) == .print("USAGE"))
        #expect(Self.parse(["--version"]) == .print("schemebridged 9\n"))
        #expect(Self.parse(["--check-config"]) == .checkConfig)
        #expect(DaemonOptions.usage(busName: "org.example.Bus").contains("Owns org.example.Bus on the session bus"))
    }

    @Test func usageErrors() {
        #expect(Self.parse(["--frobnicate"]) == .usageError("Unknown option '--frobnicate'"))
        #expect(Self.parse(["--replace=yes"]) == .usageError("'--replace' takes no value"))
        #expect(Self.parse(["--address"]) == .usageError("Missing value for '--address <address>'"))
        #expect(Self.parse(["--address", "--replace"]) == .usageError("Missing value for '--address <address>'"))
        #expect(Self.parse(["--launch-burst"]) == .usageError("Missing value for '--launch-burst'"))
        for bad in ["-1", "nan", "inf", "x"] {
            #expect(Self.parse(["--max-launch-rate", bad]) == .usageError("The value '\(bad)' is invalid for '--max-launch-rate': a number of at least 0"))
        }
        #expect(Self.parse(["--log-level", "loud"])
                == .usageError("The value 'loud' is invalid for '--log-level <level>': trace, debug, info, notice, warning, error or critical"))
        for level in DaemonOptions.logLevels {
            guard case .run(let o) = Self.parse(["--log-level", level]) else { Issue.record("\(level) refused"); continue }
            #expect(o.logLevel == level)
        }
    }

    @Test func overridesChangeOnlyWhatWasGiven() {
        var options = DaemonOptions()
        var config = PolicyConfig()
        let (rate, burst) = (config.maxLaunchRate, config.launchBurst)
        options.policyOverrides(&config)
        #expect(config.maxLaunchRate == rate && config.launchBurst == burst)
        options.maxLaunchRate = 7
        options.policyOverrides(&config)
        #expect(config.maxLaunchRate == 7 && config.launchBurst == burst)
        options.launchBurst = 3
        options.policyOverrides(&config)
        #expect(config.launchBurst == 3)
    }

    @Test func configCheckReportsWarningsAndFiles() {
        let tree = XDGTree()
        let none = ConfigCheck(environment: tree.environment)
        #expect(none.status == 0)
        #expect(none.report.hasPrefix("no warnings: no config file (looked for \(tree.configHome)/schemebridge/config, "), "\(none.report)")
        tree.write(tree.configHome + "/schemebridge/config", "[Policy]\nMaxLaunchRate=banana\n")
        let bad = ConfigCheck(environment: tree.environment)
        #expect(bad.status == 1)
        #expect(bad.report == "\(tree.configHome)/schemebridge/config: MaxLaunchRate=banana is not a number from 0.0 to 1000000.0; ignored\n"
                + "1 warning: \(tree.configHome)/schemebridge/config\n", "\(bad.report)")
    }
}

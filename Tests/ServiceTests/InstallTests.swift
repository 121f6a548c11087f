import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// `make install` as a packager and a user run it, from the tree this test was built in
/// (`CONFIG=debug`, the test's own build folder: the release build takes minutes here, and
/// install copies whichever build it is given the same way): what it runs, what it installs and
/// whether the installed files work — validated by the tools a distribution checks them with, and
/// bus activation through them with and without systemd.
@Suite struct InstallTests {
    /// Programs `make install` must never run once the programs are built: the compilers and the
    /// package managers. Each is a wrapper first on PATH that notes its call and fails.
    static let forbidden = ["swift", "swiftc", "swift-build", "swift-frontend", "swift-package", "clang", "cc", "gcc", "c++",
                            "ld", "apt-get", "apt", "dpkg", "sudo", "curl", "wget", "git"]

    /// A temp folder with the wrappers, the log they write, and room for installs.
    struct World {
        let root: URL
        var wrappers: URL { root.appendingPathComponent("wrappers") }
        var calls: URL { root.appendingPathComponent("calls.log") }

        init() throws {
            root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-install-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("wrappers"), withIntermediateDirectories: true)
            for name in InstallTests.forbidden {
                let path = wrappers.appendingPathComponent(name).path
                try "#!/bin/sh\necho \"\(name) $*\" >> '\(calls.path)'\nexit 1\n".write(toFile: path, atomically: true, encoding: .utf8)
                chmod(path, 0o755)
            }
        }

        /// What the wrappers noted.
        var recordedCalls: String { (try? String(contentsOf: calls, encoding: .utf8)) ?? "" }

        /// `make install VARIABLES…` in the package, with the wrappers first on PATH and no toolchain.
        func install(_ variables: [String], environment: [String: String] = [:], target: String = "install") async throws -> ProcessResult {
            var env = ["PATH": wrappers.path + ":/usr/local/bin:/usr/bin:/bin", "MAKEFLAGS": "", "MFLAGS": "", "XDG_DATA_HOME": ""]
            for (k, v) in environment { env[k] = v }
            return try await Tools.run(["/usr/bin/make", "-C", Built.packageRoot.path, target, "CONFIG=debug",
                                        "BUILD_DIR=" + Built.binDirectory.path] + variables, environment: env)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    @Test func packagerInstallRunsNoCompilerAndInstallsAValidTree() async throws {
        let w = try World()
        defer { w.remove() }
        let dest = w.root.appendingPathComponent("dest")
        let r = try await w.install(["DESTDIR=" + dest.path, "PREFIX=/usr"])
        #expect(r.status == 0, "make install failed: \(r.stdout)\(r.stderr)")
        #expect(w.recordedCalls.isEmpty, "make install ran a compiler or a package manager: \(w.recordedCalls)")
        let usr = dest.appendingPathComponent("usr")
        func file(_ path: String) -> URL { usr.appendingPathComponent(path) }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: file(path).path) }

        // Programs.
        for program in ["schemebridged", "schemebridge", "schemebridge-cli", "schemebridge-splash"] {
            #expect(FileManager.default.isExecutableFile(atPath: file("bin/" + program).path), "bin/\(program)")
        }
        // The dialogs: the launcher, its package and the German catalog in libexec/schemebridge.
        #expect(FileManager.default.isExecutableFile(atPath: file("libexec/schemebridge/schemebridge-dialog").path))
        #expect(exists("libexec/schemebridge/schemebridge_dialogs/gtkui.py") && exists("libexec/schemebridge/locale/de/LC_MESSAGES/schemebridge-dialogs.mo"))
        let version = try await Tools.run([file("bin/schemebridge").path, "--version"])
        #expect(version.stdout.hasPrefix("schemebridge \(Release.version)\n"), "\(version.stdout)\(version.stderr)")

        // The D-Bus service file: the real Exec= and the systemd unit's name.
        let service = Self.read(file("share/dbus-1/services/" + Contract.serviceFileName))
        #expect(service.contains("\nName=\(Contract.busName)\n") && service.contains("\nExec=/usr/bin/schemebridged\n")
                && service.contains("\nSystemdService=schemebridged.service"), "\(service)")
        for xml in ["SchemeBridge1", "Request1", "Pasteboards1", "Pasteboard1", "Chooser1", "Share1"].map({ "io.github.schemebridge.\($0).xml" }) {
            #expect(exists("share/dbus-1/interfaces/" + xml), "\(xml)")
        }

        // The systemd user unit, where systemd looks (/usr/lib/systemd/user for /usr), checked by
        // systemd-analyze verify. The unit names /usr/bin/schemebridged, which is under DESTDIR
        // here: a copy naming the installed program is verified (the only change), after
        // checking that that program is the one installed.
        let unitURL = dest.appendingPathComponent("usr/lib/systemd/user/schemebridged.service")
        let unit = Self.read(unitURL)
        #expect(unit.contains("\nType=dbus\n") && unit.contains("\nBusName=\(Contract.busName)\n") && unit.contains("\nExecStart=/usr/bin/schemebridged\n"), "\(unit)")
        let verifyDir = w.root.appendingPathComponent("verify")
        let runtime = w.root.appendingPathComponent("runtime")
        for d in [verifyDir, runtime] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        chmod(runtime.path, 0o700)
        try unit.replacingOccurrences(of: "ExecStart=/usr/bin/", with: "ExecStart=\(usr.path)/bin/")
            .write(to: verifyDir.appendingPathComponent("schemebridged.service"), atomically: true, encoding: .utf8)
        let verify = try await Tools.run([try Tools.path(of: "systemd-analyze"), "--user", "--man=no", "verify",
                                          verifyDir.appendingPathComponent("schemebridged.service").path],
                                         environment: ["XDG_RUNTIME_DIR": runtime.path, "SYSTEMD_LOG_COLOR": "0"])
        #expect(verify.status == 0 && verify.stderr.isEmpty && verify.stdout.isEmpty, "systemd-analyze verify: \(verify.status) \(verify.stdout)\(verify.stderr)")

        // The desktop entry, as desktop-file-validate sees it, with its Exec= made absolute.
        let desktop = file("share/applications/io.github.schemebridge.SchemeBridge.desktop")
        let validate = try await Tools.run([try Tools.path(of: "desktop-file-validate"), desktop.path])
        #expect(validate.status == 0 && validate.stdout.isEmpty && validate.stderr.isEmpty, "\(validate.stdout)\(validate.stderr)")
        #expect(Self.read(desktop).contains("\nExec=/usr/bin/schemebridge open %u\n"), "\(Self.read(desktop))")

        // Completions for the three shells.
        #expect(Self.read(file("share/bash-completion/completions/schemebridge")).contains("_schemebridge()"))
        #expect(Self.read(file("share/zsh/site-functions/_schemebridge")).hasPrefix("#compdef schemebridge"))
        #expect(Self.read(file("share/fish/vendor_completions.d/schemebridge.fish")).contains("complete -c 'schemebridge'"))

        // Man pages, with the release filled in, that groff reads without a warning.
        for page in ["man1/schemebridge.1", "man5/schemebridge-config.5", "man8/schemebridged.8"] {
            let text = Self.read(file("share/man/" + page))
            #expect(!text.isEmpty && !text.contains("@VERSION@") && !text.contains("@docdir@") && !text.contains("@datadir@"), "\(page)")
            let groff = try await Tools.run([try Tools.path(of: "groff"), "-mandoc", "-ww", "-z", "-Tutf8", file("share/man/" + page).path])
            #expect(groff.status == 0 && groff.stderr.isEmpty, "\(page): \(groff.stderr)")
        }
        #expect(Self.read(file("share/man/man8/schemebridged.8")).contains("SchemeBridge \(Release.version)"))
        // Documentation.
        for doc in ["README.md", "CHANGELOG.md", "LICENSE", "CONTRACT.md", "SECURITY.md", "GUIDE.md"] {
            #expect(exists("share/doc/schemebridge/" + doc), "\(doc)")
        }

        // `make uninstall` with the same variables takes it all away again.
        let un = try await Tools.run(["/usr/bin/make", "-C", Built.packageRoot.path, "uninstall", "DESTDIR=" + dest.path, "PREFIX=/usr"],
                                     environment: ["PATH": w.wrappers.path + ":/usr/bin:/bin"])
        #expect(un.status == 0, "\(un.stderr)")
        let left = FileManager.default.enumerator(atPath: dest.path)?.compactMap { $0 as? String }.filter {
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: dest.appendingPathComponent($0).path, isDirectory: &isDir) && !isDir.boolValue
        } ?? []
        #expect(left.isEmpty, "left after make uninstall: \(left)")
        #expect(w.recordedCalls.isEmpty, "\(w.recordedCalls)")
    }

    /// `make install PREFIX=~/.local`: the session files go where the user's session bus and
    /// `systemd --user` look ($XDG_DATA_HOME), the rest under the prefix.
    @Test func userInstallPutsTheSessionFilesInXDGDataHome() async throws {
        let w = try World()
        defer { w.remove() }
        let home = w.root.appendingPathComponent("home").path
        let dest = w.root.appendingPathComponent("dest").path
        // A literal ~ (from a shell that does not expand it there), XDG_DATA_HOME unset.
        let r = try await w.install(["DESTDIR=" + dest, "PREFIX=~/.local"], environment: ["HOME": home])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        for path in ["/.local/bin/schemebridge", "/.local/share/systemd/user/schemebridged.service",
                     "/.local/share/dbus-1/services/" + Contract.serviceFileName,
                     "/.local/share/applications/io.github.schemebridge.SchemeBridge.desktop", "/.local/share/man/man1/schemebridge.1"] {
            #expect(FileManager.default.fileExists(atPath: dest + home + path), "\(path)")
        }
        #expect(Self.read(URL(fileURLWithPath: dest + home + "/.local/share/dbus-1/services/" + Contract.serviceFileName))
            .contains("\nExec=\(home)/.local/bin/schemebridged\n"))
        // With XDG_DATA_HOME set, the session files follow it.
        let data = w.root.appendingPathComponent("xdg-data").path
        let moved = try await w.install(["DESTDIR=" + dest, "PREFIX=" + home + "/.local"], environment: ["HOME": home, "XDG_DATA_HOME": data])
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        for path in ["/systemd/user/schemebridged.service", "/dbus-1/services/" + Contract.serviceFileName,
                     "/applications/io.github.schemebridge.SchemeBridge.desktop"] {
            #expect(FileManager.default.fileExists(atPath: dest + data + path), "\(path)")
        }
        #expect(w.recordedCalls.isEmpty, "\(w.recordedCalls)")
    }

    /// Every file below `root`, as paths relative to it.
    static func files(under root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    /// A user install (`PREFIX=~/.local`, no DESTDIR) writes below `~/.local` and nowhere else —
    /// not Thunar's `uca.xml`, even with Thunar installed: "Share…" in the file managers is
    /// `make install-file-manager-actions`, which adds it only to the file managers installed.
    @Test func userInstallWritesNothingOutsideItsDirectories() async throws {
        let w = try World()
        defer { w.remove() }
        let home = w.root.appendingPathComponent("home").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        // A Thunar on PATH (a stand-in: only its name counts).
        let apps = w.root.appendingPathComponent("apps").path
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        let environment = ["HOME": home, "XDG_CONFIG_HOME": "", "PATH": w.wrappers.path + ":" + apps + ":/usr/local/bin:/usr/bin:/bin"]
        try "#!/bin/sh\nexit 0\n".write(toFile: apps + "/thunar", atomically: true, encoding: .utf8)
        chmod(apps + "/thunar", 0o755)
        // A zsh whose fpath does not hold the folder (`zsh -fc` asked whether it does: no).
        try "#!/bin/sh\nexit 1\n".write(toFile: apps + "/zsh", atomically: true, encoding: .utf8)
        chmod(apps + "/zsh", 0o755)
        let r = try await w.install(["PREFIX=~/.local"], environment: environment)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        // The one line that makes zsh find the completion, said once the install is done.
        #expect(r.stdout.contains("add this line to ~/.zshrc, before compinit:  fpath=(\(home)/.local/share/zsh/site-functions $fpath)"), "\(r.stdout)")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/zsh/site-functions/_schemebridge"))
        let written = Self.files(under: home)
        #expect(written.contains(".local/bin/schemebridge") && written.contains(".local/share/man/man1/schemebridge.1"), "\(written)")
        #expect(written.allSatisfy { $0.hasPrefix(".local/") } && !written.contains { $0.contains("file-managers") || $0.contains("nautilus") },
                "make install wrote outside ~/.local, or file manager actions: \(written.filter { !$0.hasPrefix(".local/bin") })")

        // The file manager actions: only Thunar's here, merged into its uca.xml.
        let actions = try await w.install(["PREFIX=~/.local"], environment: environment, target: "install-file-manager-actions")
        #expect(actions.status == 0 && actions.stdout.contains("file managers: thunar"), "\(actions.stdout)\(actions.stderr)")
        let after = Self.files(under: home)
        #expect(Self.read(URL(fileURLWithPath: home + "/.config/Thunar/uca.xml")).contains("io.github.schemebridge.share"), "\(after)")
        #expect(after.contains(".local/share/schemebridge/file-managers/share-action.xml") && !after.contains { $0.contains("nautilus") || $0.contains("kio") },
                "\(after)")
        // With no file manager installed, nothing.
        try FileManager.default.removeItem(atPath: apps + "/thunar")
        let other = w.root.appendingPathComponent("other-home").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        var bare = environment
        bare["HOME"] = other
        let none = try await w.install(["PREFIX=~/.local"], environment: bare, target: "install-file-manager-actions")
        #expect(none.status == 0 && none.stdout.contains("none installed") && Self.files(under: other).isEmpty, "\(none.stdout)\(Self.files(under: other))")
        #expect(w.recordedCalls.isEmpty, "\(w.recordedCalls)")
    }

    /// The installed files start the installed service: a bus without systemd runs the service
    /// file's `Exec=`; a bus with systemd activation asks for the unit the service file names,
    /// and systemd (played by ``FakeSystemd``) runs the installed unit's `ExecStart=`.
    @Test func installedFilesStartTheServiceWithAndWithoutSystemd() async throws {
        let w = try World()
        defer { w.remove() }
        let prefix = w.root.appendingPathComponent("prefix").path
        let r = try await w.install(["PREFIX=" + prefix])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let installedService = try String(contentsOfFile: prefix + "/share/dbus-1/services/" + Contract.serviceFileName, encoding: .utf8)
        let unitDirectory = prefix + "/lib/systemd/user"
        #expect(FileManager.default.fileExists(atPath: unitDirectory + "/schemebridged.service"), "unit dir relative to PREFIX")
        let cli = prefix + "/bin/schemebridge"

        for systemd in [false, true] {
            let f = try ServiceFixture(systemdActivation: systemd)
            defer { f.stop() }
            try installedService.write(to: f.bus.serviceDirectory.appendingPathComponent(Contract.serviceFileName), atomically: true, encoding: .utf8)
            try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
            let manager = systemd ? try await FakeSystemd(bus: f.bus, unitDirectory: unitDirectory, environment: f.environment) : nil
            defer { manager?.stop() }
            let opened = try await Tools.run([cli, "open", "good://x"],
                                             environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
            #expect(opened.status == 0, "systemd \(systemd): \(opened.status) \(opened.stderr) \(manager?.lines ?? [])")
            #expect(await f.recordedArgv("good") == ["good://x"], "systemd \(systemd)")
            // The service running is the installed program.
            let pid = try #require(await f.servicePID(), "systemd \(systemd)")
            let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            #expect(exe == prefix + "/bin/schemebridged", "systemd \(systemd): \(exe)")
            if let manager {
                #expect(manager.lines.contains("request schemebridged.service") && manager.lines.contains("start \(prefix)/bin/schemebridged"),
                        "\(manager.lines)")
            }
        }
    }
}

import Foundation
import Glibc
import Testing
import DBusTestSupport

/// Files as a user names them: `schemebridge type` answers what `gio info -a standard::content-type`
/// answers for files that are not plain readable files with UTF-8 names (a Latin-1 name, folders,
/// dangling links, link loops, sockets, FIFOs, devices, files this user may not read), and `open`
/// opens a file whose name is not UTF-8.
@Suite struct FileArgumentTests {
    static let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

    /// Runs `prefix + program FILE` through `sh`, FILE made by `printf` (escapes like `\351`), so
    /// the program gets the bytes, not their UTF-8.
    static func run(_ f: ServiceFixture, _ prefix: [String], _ program: [String], files: [String]) async throws -> ProcessResult {
        precondition(files.count == 1)
        return try await Tools.run(["/bin/sh", "-c", "exec \"$@\" \"$(printf \"$F\")\"", "sh"] + prefix + program,
                                   environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "F": files[0], "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
    }

    static func gioType(_ f: ServiceFixture, _ prefix: [String], _ file: String) async throws -> String {
        // Only the type line: gio prints the path's bytes too, which are not UTF-8.
        let r = try await Tools.run(["/bin/sh", "-c", "\"$@\" \"$(printf \"$F\")\" | grep standard::content-type", "sh"] + prefix
                                    + ["/usr/bin/gio", "info", "-a", "standard::content-type"], environment: ["F": file])
        return r.stdout.split(separator: "\n").first { $0.contains("standard::content-type: ") }
            .map { String($0.split(separator: " ").last!) } ?? "gio: \(r.stderr)"
    }

    @Test func typeAgreesWithGioOnFilesThatAreNotPlainReadableFiles() async throws {
        let f = try ServiceFixture(anyUser: true)
        defer { f.stop() }
        let dir = f.root.appendingPathComponent("files").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(f.root.path, 0o755)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)
        func write(_ name: [UInt8], _ bytes: [UInt8], mode: mode_t = 0o644) {
            let path = Array(dir.utf8) + [UInt8(ascii: "/")] + name + [0]
            let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, mode) } }
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            _ = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { chmod($0.baseAddress!, mode) } }
        }
        write(Array("caf".utf8) + [0xE9] + Array(".txt".utf8), Array("hello\n".utf8))
        write([0xFF, 0xFE] + Array("-picture".utf8), png)
        write(Array("secret.txt".utf8), Array("hello\n".utf8), mode: 0)
        write(Array("secret-picture".utf8), png, mode: 0)
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        symlink(dir + "/nowhere", dir + "/dangling")
        symlink(dir + "/loop-b", dir + "/loop-a")
        symlink(dir + "/loop-a", dir + "/loop-b")
        mkfifo(dir + "/fifo", 0o644)
        let socket = try await Tools.run(Clients.command("FileArgument/bind-socket", ["\(dir)/socket"]))
        #expect(socket.status == 0, "\(socket.stderr)")
        let cli = try Built.executable("schemebridge")

        // As root (the test's user) and as another user, who may not read the secret files.
        var compared = 0
        for (prefix, names) in [([String](), ["caf\\351.txt", "\\377\\376-picture", "folder", "dangling", "loop-a", "fifo", "socket"]),
                                (Self.asNobody, ["secret.txt", "secret-picture", "folder", "caf\\351.txt"])] {
            for name in names {
                let gio = try await Self.gioType(f, prefix, dir + "/" + name)
                let ours = try await Self.run(f, prefix, [cli, "type"], files: [dir + "/" + name])
                #expect(ours.status == 0 && ours.stdout == gio + "\n", "\(prefix.isEmpty ? "root" : "nobody"): \(name): gio \(gio), schemebridge \(ours.stdout)\(ours.stderr)")
                compared += 1
            }
        }
        #expect(try await Self.gioType(f, [], "/dev/null") == "inode/chardevice")
        let device = try await Tools.run([cli, "type", "/dev/null"], environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
        #expect(device.stdout == "inode/chardevice\n", "\(device.stdout)\(device.stderr)")
        // A file:// URI with a %-escape that is not UTF-8 is the same file.
        let uri = try await Tools.run([cli, "type", "file://" + dir + "/caf%E9.txt"], environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
        #expect(uri.status == 0 && uri.stdout == "text/plain\n", "\(uri.stdout)\(uri.stderr)")
        // What does not exist is still exit 2.
        let missing = try await Tools.run([cli, "type", dir + "/missing"], environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
        #expect(missing.status == 2 && missing.stderr.contains("No such file or directory"), "\(missing.stderr)")
        #expect(compared == 11)
    }

    @Test func openTakesAFileWhoseNameIsNotUTF8() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("viewer.desktop", "Name=Viewer\nExec=\(try f.recorder("viewer")) %f\nMimeType=text/plain;")
        let dir = f.root.appendingPathComponent("files").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let made = try await Tools.run(["/bin/sh", "-c", "printf 'hello\\n' > \"$(printf '\(dir)/caf\\351.txt')\""])
        #expect(made.status == 0, "\(made.stderr)")
        let cli = try Built.executable("schemebridge")
        let r = try await Self.run(f, [], [cli, "open", "--copy"], files: [dir + "/caf\\351.txt"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        // The Inbox copy keeps the name's bytes, and the handler gets its path as they are.
        _ = try #require(await f.recordedArgv("viewer"))
        let argv = Array(try Data(contentsOf: f.records.appendingPathComponent("viewer.argv")))
        let copy = Array((DocumentTests.inbox(f, "viewer").path + "/caf").utf8) + [0xE9] + Array(".txt".utf8)
        #expect(argv == copy + [0], "\(String(decoding: argv, as: UTF8.self))")
        let fd = (copy + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) } }
        var bytes = [UInt8](repeating: 0, count: 16)
        #expect(fd >= 0 && bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } == 6 && bytes.prefix(6).elementsEqual("hello\n".utf8))
        close(fd)
    }
}

/// The properties the fuzzers (and `make test`, over the committed corpus) check on arbitrary
/// input. Each function must never crash, hang or trap; it traps (`precondition`) only when an
/// invariant of our own is broken, which is what the fuzzer reports.
public enum FuzzChecks {
    /// The URL validator: accepts or refuses; an accepted URL is kept byte for byte, its scheme
    /// is valid and lower-case.
    public static func url(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let u = try? SchemeURL(text) else { return }
        precondition(u.string == text, "the URL must be kept byte for byte")
        precondition(Scheme.isValid(u.scheme.name) && u.scheme.name == u.scheme.name.lowercased(), "scheme must be valid and lower-case")
        precondition(u.string.utf8.count <= SchemeURL.maximumByteCount)
    }

    /// The key-file parser on any bytes, and the desktop-entry and mimeapps readings of it.
    public static func keyFile(_ bytes: [UInt8]) {
        guard let file = try? KeyFile(bytes: bytes, path: "fuzz.desktop") else { return }
        for g in file.groups {
            for e in g.entries {
                _ = g.string(e.key)
                _ = g.stringList(e.key)
                _ = g.boolean(e.key)
            }
        }
        var warnings: [KeyFileError] = []
        _ = MimeAppsList(keyFile: file, allowsAssociations: true, warnings: &warnings)
        if let exec = file.group("Desktop Entry")?.string("Exec") {
            exec_(exec, url: "todolist://x y")
        }
    }

    /// The Exec tokenizer and expander: the first line is the Exec value, the rest the URL.
    /// Every expansion holds the URL as exactly one whole argument (or inside one argument for
    /// `--x=%u`), never split.
    public static func exec(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        exec_(String(parts[0]), url: parts.count > 1 ? String(parts[1]) : "todolist://x")
    }

    static func exec_(_ exec: String, url: String) {
        guard let command = try? ExecCommand(exec), let u = try? SchemeURL(url) else { return }
        let plain = try! SchemeURL("a:b")
        let withURL = command.argumentVectors(for: [u])
        let withPlain = command.argumentVectors(for: [plain])
        // Never re-split: whatever the URL holds, the argv has the same shape as with `a:b`.
        precondition(withURL.map(\.count) == withPlain.map(\.count), "the URL changed the number of arguments")
        for argv in withURL {
            precondition(!argv.isEmpty && !argv[0].isEmpty, "an expansion has a program")
            if !command.hasURLFieldCode {
                precondition(argv.last == u.string, "without %u the URL is appended as the last argument")
            }
        }
    }
}

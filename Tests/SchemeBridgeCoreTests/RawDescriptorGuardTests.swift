import Foundation
import Testing
@testable import SchemeBridgeCore

/// `FileDescriptor` (LinuxSystem) is the one descriptor currency in Core (issue 36, item 3):
/// a descriptor is opened, duplicated and closed through it, so ownership and the close on
/// every path are the type's job. Core calls none of Glibc's `open`, `openat`, `close`, `dup`,
/// `dup2`, `dup3` or `fstat` itself, but in the files allowed below, each for its reason.
@Suite struct RawDescriptorGuardTests {
    /// The C functions that make, copy, close or look at a descriptor by its number.
    static let functions = ["open", "openat", "close", "dup", "dup2", "dup3", "fstat"]

    /// The calls of ``functions`` in `source`, as `file:line: call(`. A reading of the source
    /// text: comments (from `//` on) are dropped; a method (`x.open(`, `func close(`,
    /// `case open(`) is not such a call, nor a call with no argument (`close()`) or with a
    /// labelled one (`open(items, ask: true)`: a C function takes none). `Glibc.close(` is one.
    static func rawDescriptorCalls(in source: String, file: String) -> [String] {
        let call = try! NSRegularExpression(pattern: #"(?:\bGlibc\.|(?<![\w.]))("# + functions.joined(separator: "|") + #")\("#)
        let label = try! NSRegularExpression(pattern: #"(?:^|,)\s*[A-Za-z_]\w*:"#)
        var found: [String] = []
        for (index, fullLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(fullLine.components(separatedBy: "//")[0])
            for match in call.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let range = Range(match.range, in: line) else { continue }
                let before = line[..<range.lowerBound]
                if before.hasSuffix("func ") || before.hasSuffix("case ") { continue }
                // The arguments: up to the parenthesis that closes the one the match ends with.
                var depth = 1, arguments = ""
                for c in line[range.upperBound...] {
                    if "([".contains(c) { depth += 1 } else if ")]".contains(c) { depth -= 1 }
                    if depth == 0 { break }
                    arguments.append(depth == 1 ? c : " ")
                }
                let trimmed = arguments.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, label.firstMatch(in: trimmed, range: NSRange(trimmed.startIndex..., in: trimmed)) == nil else { continue }
                found.append("\(file):\(index + 1): \(line[range])")
            }
        }
        return found
    }

    @Test func coreMakesAndClosesDescriptorsOnlyThroughFileDescriptor() throws {
        // Files (relative to Sources/SchemeBridgeCore) still calling them, each for its reason.
        let allowed: [String: String] = [:]
        let core = TypedIDsTests.core
        let files = try FileManager.default.subpathsOfDirectory(atPath: core.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count > 100, "Core's sources were not found at \(core.path)")
        var found: [String: [String]] = [:]
        for file in files {
            let calls = Self.rawDescriptorCalls(in: try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8), file: file)
            if !calls.isEmpty { found[file] = calls }
        }
        #expect(found.filter { allowed[$0.key] == nil }.values.flatMap { $0 }.sorted() == [],
                "raw descriptor calls in Core: open, dup and close through LinuxSystem's FileDescriptor")
        // An allowance goes when its file no longer needs it.
        #expect(allowed.keys.filter { found[$0] == nil }.sorted() == [], "allowed but converted (or gone): take them off the list")
    }

    /// The check itself: what it must find, and what it must not.
    @Test func theGuardFindsARawCall() {
        let source = """
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            deinit { if wake >= 0 { Glibc.close(wake) } }
            let copy = dup(fd), at = openat(dir, String(fd), O_RDONLY)
            if fstat(fd, &st) != 0 { return }
            // close(fd) in a comment
            let x = try FileDescriptor.open(path, O_RDONLY) // then open(path, 0)
            registry.close(); close(); self?.close(id)
            public func close(_ id: UInt64) -> Bool {
            case open(ChooserTargetID?, HandlerReason)
            await open(kept, ask: mode == .ask, device: device)
            reopen(fd); closeAll(fd)
            """
        #expect(Self.rawDescriptorCalls(in: source, file: "X.swift") == [
            "X.swift:1: open(", "X.swift:2: close(", "X.swift:3: Glibc.close(", "X.swift:4: dup(", "X.swift:4: openat(", "X.swift:5: fstat(",
        ])
    }
}

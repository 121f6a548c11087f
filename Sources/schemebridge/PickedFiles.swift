import Glibc
import LinuxSystem

/// Where `schemebridge pick` puts what was picked: a file per document, created exclusively
/// (never over an existing file: `name (2).ext`, `name (3).ext`…).
enum PickedFiles {
    struct Failure: Error { let message: String }

    /// `given` as a file name: its last component, without control characters, never empty,
    /// `.` or `..` (then `document-N`), at most 200 bytes.
    static func safeName(_ given: String, index: Int) -> String {
        let last = given.split(separator: "/").last.map(String.init) ?? ""
        var out = ""
        for s in last.unicodeScalars where s.value >= 0x20 && s.value != 0x7F {
            if out.utf8.count + String(s).utf8.count > 200 { break }
            out.unicodeScalars.append(s)
        }
        return out.isEmpty || out == "." || out == ".." ? "document-\(index + 1)" : out
    }

    /// A new folder only the user can read, for `--print`.
    static func privateFolder() throws -> String {
        let base = Terminal.environment("XDG_RUNTIME_DIR").flatMap { $0.isEmpty ? nil : $0 } ?? Terminal.environment("TMPDIR") ?? "/tmp"
        var template = Array((base + "/schemebridge-pick-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            Terminal.error("schemebridge pick: cannot make a folder in \(base): \(String(cString: strerror(errno)))")
            throw ExitStatus.failed.exitCode
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Copies `fd` into a new file `name` (or a suffixed one) in `folder`; its path and size.
    static func write(_ fd: Int32, into folder: String, name: String) throws(Failure) -> (String, Int64) {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let (stem, ext) = dot.map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
        for n in 1...1000 {
            let path = folder + "/" + (n == 1 ? name : "\(stem) (\(n))\(ext)")
            let raw: Int32
            switch Result(catching: { () throws(Errno) -> Int32 in try FileDescriptor.openNoFollow(path, .createNew(permissions: 0o644)).take() }) {
            case .success(let fd): raw = fd
            case .failure(let error) where error.code == EEXIST: continue
            case .failure(let error): throw Failure(message: error.description)
            }
            let out = FileDescriptor(owning: raw)
            do {
                let copied = try FileDescriptor.lending(fd) { (source) throws(Errno) in try source.copy(to: out, offset: 0) }
                return (path, copied)
            } catch {
                throw Failure(message: error.description)
            }
        }
        throw Failure(message: "1,000 files of that name are there already")
    }
}

import Glibc

/// Reads small regular files safely: opened non-blocking (a FIFO put where a file was expected
/// cannot block the reader), regular files only, at most `limit` bytes, `EINTR`-safe. The one
/// way this project reads a configuration file, a desktop entry or a `/proc` file.
public enum SmallFile {
    /// Why a file could not be read.
    public enum Failure: Error, Sendable, Equatable {
        /// The system refused (open, stat or read).
        case system(operation: String, Errno)
        /// Not a regular file (a FIFO, a device, a directory…).
        case notRegular
        /// Larger than the limit.
        case tooLarge(size: Int64, limit: Int)
    }

    /// The bytes of the regular file at `path` and its `stat`.
    /// - Parameters:
    ///   - limit: the most bytes accepted; a larger file is ``Failure/tooLarge(size:limit:)``.
    ///   - sizeKnown: false for files whose `st_size` says nothing (`/proc`): the limit is then
    ///     checked while reading.
    public static func read(_ path: String, limit: Int, sizeKnown: Bool = true) throws(Failure) -> (bytes: [UInt8], status: stat) {
        let fd = try openForReading(path)
        let st: stat
        do { st = try fd.status() } catch { throw .system(operation: "stat", error) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notRegular }
        if sizeKnown && Int64(st.st_size) > Int64(limit) { throw .tooLarge(size: Int64(st.st_size), limit: limit) }
        let expected = sizeKnown ? Int(st.st_size) : 4096
        var bytes = [UInt8](repeating: 0, count: min(max(expected + 1, 512), limit + 1))
        var total = 0
        while true {
            if total == bytes.count {
                if bytes.count > limit { throw .tooLarge(size: Int64(total), limit: limit) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit + 1 - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...])) }
            }
            switch n {
            case .failure(let e): throw .system(operation: "read", e)
            case .success(0): break
            case .success(let count):
                total += count
                continue
            }
            break
        }
        if total > limit { throw .tooLarge(size: Int64(total), limit: limit) }
        bytes.removeSubrange(total...)
        return (bytes, st)
    }

    private static func openForReading(_ path: String) throws(Failure) -> FileDescriptor {
        do { return try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) } catch { throw .system(operation: "open", error) }
    }
}

import Glibc
import Testing
@testable import SchemeBridgeCore

/// A private shared-mime-info database: package XML in `$XDG_DATA_HOME/mime/packages` (level 0)
/// and in one `$XDG_DATA_DIRS` entry (level 1), compiled by `update-mime-database`, and a
/// directory of sample files. Nothing of the installed database is used.
final class MimeFixture: @unchecked Sendable {
    let tree = XDGTree(dataDirCount: 1)
    /// Where sample files go (a normalised path: gio reports normalised paths).
    let files: String

    init() {
        files = (FileSystem.realPath(tree.root) ?? tree.root) + "/files"
        tree.mkdir(files)
    }

    /// The `mime` directory of level 0 (data home) or 1 (data dir).
    func mimeDir(_ level: Int) -> String { (level == 0 ? tree.dataHome : tree.dataDirs[0]) + "/mime" }

    var environment: [String: String] {
        GioContentTypes.toolEnvironment(dataHome: tree.dataHome, dataDirs: tree.dataDirs.joined(separator: ":"))
    }

    /// Writes `types` (the `<mime-type>` elements) as the package of `level` and compiles it.
    func install(_ types: String, level: Int = 0) throws {
        tree.mkdir(mimeDir(level) + "/packages")
        tree.write(mimeDir(level) + "/packages/test.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
            \(types)
            </mime-info>
            """)
        guard let tool = requireTool("update-mime-database", package: "shared-mime-info") else {
            throw ToolFailure("update-mime-database is missing")
        }
        _ = try runCapturingOutput([tool, mimeDir(level)], environment: environment)
        #expect(access(mimeDir(level) + "/mime.cache", R_OK) == 0, "update-mime-database wrote no cache")
    }

    func database() -> ContentTypeDatabase { ContentTypeDatabase(environment: environment) }

    /// Writes a sample file; returns its path.
    @discardableResult
    func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = files + "/" + name
        tree.writeBytes(path, bytes)
        return path
    }

    /// gio's type for each path.
    func gioTypes(_ paths: [String]) throws -> [String: String] {
        guard let gio = requireTool("gio", package: "libglib2.0-bin") else { throw ToolFailure("gio is missing") }
        return try GioContentTypes.types(of: paths, gio: gio, environment: environment)
    }
}

import DBusTestSupport
import Foundation

/// GSConnect with its payload connections closed once a file is sent
/// (`Engines/gsconnect-closing-fix.patch`, which says what it changes and why): a copy of the
/// installed extension, patched, for the device tests whose subject is SchemeBridge's sending
/// from GSConnect — not GSConnect's known tail (docs/GUIDE.md, "Sent by GSConnect"). No upstream
/// release has this fix; the patch is written as one would send it.
enum GSConnectClosingFix {
    static let patch = Built.packageRoot.appendingPathComponent("Tests/ServiceTests/Engines/gsconnect-closing-fix.patch")
    static let installed = URL(fileURLWithPath: GSConnectSide.daemon).deletingLastPathComponent().deletingLastPathComponent()

    /// A patched copy of the installed extension in `folder`; its `service/daemon.js` (gjs finds
    /// the rest of the extension beside it). Fails when the patch does not apply whole.
    static func daemon(in folder: URL) async throws -> String {
        let copy = folder.appendingPathComponent(installed.lastPathComponent)
        try FileManager.default.copyItem(at: installed, to: copy)
        let applied = try await Tools.run(["patch", "-p1", "--forward", "--batch", "-d", copy.path, "-i", patch.path])
        guard applied.succeeded, !applied.stdout.contains("offset"), !applied.stdout.contains("fuzz") else {
            throw ToolError("\(patch.lastPathComponent) does not apply to \(installed.path) as written: \(applied.stdout)\(applied.stderr)")
        }
        return copy.appendingPathComponent("service/daemon.js").path
    }
}

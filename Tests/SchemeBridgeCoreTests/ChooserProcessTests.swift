import Foundation
import Testing
@testable import SchemeBridgeCore

/// Chooser programs run by ``ChooserProcess``: the candidates reach stdin, the answer comes from
/// stdout, a cancel is a cancel, and one that hangs is stopped after the timeout (SIGTERM, then
/// SIGKILL for one that ignores it) — the calling task merely waits.
@Suite struct ChooserProcessTests {
    let tree = XDGTree(dataDirCount: 0)

    func script(_ name: String, _ body: String) -> String {
        let path = tree.bin + "/" + name
        tree.write(path, "#!/bin/sh\n" + body + "\n")
        chmod(path, 0o755)
        return path
    }

    let candidates = [ChooserCandidate(id: "a.desktop", name: "Alpha", icon: "alpha"),
                      ChooserCandidate(id: "b.desktop", name: "Beta", icon: "")]

    func run(_ program: String, timeout: Duration = .seconds(60)) async -> ChooserProcess.Outcome {
        await ChooserProcess.run(argv: [program], environment: ["PATH": "/usr/bin:/bin"], input: Array("a.desktop\tAlpha\talpha\nb.desktop\tBeta\t\n".utf8), timeout: timeout)
    }

    @Test func aPickComesBackWithTheInputSeen() async {
        let seen = tree.root + "/seen"
        let picker = script("picker", "cat > '\(seen)'\nprintf 'b.desktop\\talways\\n'")
        guard case .finished(let status, let output) = await run(picker) else { Issue.record("not finished"); return }
        #expect(status == 0)
        #expect(output == Array("b.desktop\talways\n".utf8))
        #expect(tree.read(seen) == "a.desktop\tAlpha\talpha\nb.desktop\tBeta\t\n")
    }

    @Test func aCancelIsACancel() async {
        guard case .finished(let status, let output) = await run(script("canceller", "exit 1")) else { Issue.record("not finished"); return }
        #expect(status == 1 && output.isEmpty)
    }

    @Test func aChooserThatHangsIsStopped() async {
        // It never reads its input and never answers; the timeout is what ends it.
        let hanger = script("hanger", "while :; do sleep 0.1; done")
        #expect(await run(hanger, timeout: .seconds(1)) == .timedOut)
        let stubborn = script("stubborn", "trap '' TERM\nwhile :; do sleep 0.1; done")
        #expect(await run(stubborn, timeout: .seconds(1)) == .timedOut)
    }

    @Test func aMissingProgramIsReported() async {
        guard case .failedToStart(let error) = await run(tree.bin + "/none") else { Issue.record("started"); return }
        #expect(error.reason.contains("does not exist"))
    }
}

import Glibc
import Testing
@testable import SchemeBridgeCore

/// Our content types against `gio info -a standard::content-type` (GLib on this machine, the
/// installed shared-mime-info database): the regular files under /usr/share and /usr/lib plus
/// the generated set of ``ContentTypeSamples`` (extension-less files with magic, conflicting
/// names, the glob rules, the text heuristics, non-regular files). Prints the agreement and
/// every difference; requires 99.9%.
///
/// The installed files are sampled (every 16th, in sorted walk order) to keep `make test`
/// short; `CONTENT_TYPE_AGREEMENT=full` (scripts/content-type-agreement.sh) compares all of
/// them; `CONTENT_TYPE_AGREEMENT_VERBOSE=1` lists every generated file with both answers. gio is required (libglib2.0-bin): a missing tool fails the test, it is never skipped.
@Suite(.serialized) struct ContentTypeAgreementTests {
    static let sampleStep = 16
    static let requiredAgreement = 0.999

    static var fullRun: Bool { getenv("CONTENT_TYPE_AGREEMENT").map { String(cString: $0) } == "full" }

    /// Regular files below `root` (symlinks not followed), directories in sorted order; names
    /// that are not UTF-8 are left out (counted in `skipped`).
    static func regularFiles(under root: String, into files: inout [String], skipped: inout Int) {
        guard let listing = try? FileSystem.list(root) else { return }
        skipped += listing.undecodable
        for entry in listing.entries.sorted(by: { $0.name < $1.name }) {
            let path = root + "/" + entry.name
            var type = entry.type
            if type == UInt8(DT_UNKNOWN) {
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                type = st.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : st.st_mode & S_IFMT == S_IFREG ? UInt8(DT_REG) : 0
            }
            if type == UInt8(DT_DIR) {
                regularFiles(under: path, into: &files, skipped: &skipped)
            } else if type == UInt8(DT_REG) {
                files.append(path)
            }
        }
    }

    @Test func agreesWithGio() throws {
        guard let gio = requireTool("gio", package: "libglib2.0-bin") else { return }
        let tree = XDGTree(dataDirCount: 0)
        let env = GioContentTypes.toolEnvironment(dataHome: tree.dataHome, dataDirs: "/usr/local/share:/usr/share")
        let types = ContentTypeDatabase(environment: env)
        #expect(types.cacheCount >= 1, "no mime.cache in /usr/share/mime: install shared-mime-info")

        var installed: [String] = []
        var skipped = 0
        for root in ["/usr/share", "/usr/lib"] { ContentTypeAgreementTests.regularFiles(under: root, into: &installed, skipped: &skipped) }
        let total = installed.count
        if !ContentTypeAgreementTests.fullRun {
            installed = installed.enumerated().filter { $0.offset % ContentTypeAgreementTests.sampleStep == 0 }.map(\.element)
        }

        // A few files of each type found, copied without their names, so that only content tells.
        var seen: [String: Int] = [:]
        var copies: [String] = []
        for path in installed {
            guard let t = types.contentType(ofFileAt: path) else { continue }
            seen[t, default: 0] += 1
            if seen[t]! <= 3 { copies.append(path) }
        }
        // gio reports paths normalised (the temporary directory's "//" would not match).
        let generatedDir = (FileSystem.realPath(tree.root) ?? tree.root) + "/generated"
        tree.mkdir(generatedDir)
        let generated = ContentTypeSamples.write(into: generatedDir, copies: copies)
            + ContentTypeSamples.writeSpecialFiles(into: generatedDir)

        let clock = ContinuousClock()
        let gioStart = clock.now
        let expected = try GioContentTypes.types(of: installed + generated, gio: gio, environment: env)
        let gioTime = clock.now - gioStart
        let oursStart = clock.now
        let ours = (installed + generated).map { types.contentType(ofFileAt: $0) }
        let oursTime = clock.now - oursStart

        var compared = 0, agreed = 0, generatedCompared = 0, generatedAgreed = 0
        var differences: [String: [String]] = [:]
        for (i, path) in (installed + generated).enumerated() {
            guard let theirs = expected[path] else { continue }
            let isGenerated = i >= installed.count
            compared += 1
            if isGenerated { generatedCompared += 1 }
            if ours[i] == theirs {
                agreed += 1
                if isGenerated { generatedAgreed += 1 }
            } else {
                differences["gio \(theirs), ours \(ours[i] ?? "none")", default: []].append(path)
            }
        }
        let rate = compared == 0 ? 0 : Double(agreed) / Double(compared)
        print("""
            content types vs gio info: \(agreed)/\(compared) agree (\(String(format: "%.3f", rate * 100))%): \
            installed \(agreed - generatedAgreed)/\(compared - generatedCompared) \
            (\(ContentTypeAgreementTests.fullRun ? "all" : "every \(ContentTypeAgreementTests.sampleStep)th of") \(total) files \
            under /usr/share and /usr/lib, \(skipped) non-UTF-8 names left out), generated \(generatedAgreed)/\(generatedCompared); \
            gio \(gioTime), ours \(oursTime)
            """)
        if getenv("CONTENT_TYPE_AGREEMENT_VERBOSE") != nil {
            for (i, path) in generated.enumerated() {
                print("  generated \(path): ours \(ours[installed.count + i] ?? "none"), gio \(expected[path] ?? "none")")
            }
        }
        for (kind, paths) in differences.sorted(by: { $0.value.count > $1.value.count }) {
            print("  \(paths.count)× \(kind): \(paths.prefix(5).joined(separator: ", "))")
        }
        #expect(compared > 1000, "too few files compared: \(compared)")
        #expect(rate >= ContentTypeAgreementTests.requiredAgreement, "agreement \(rate) is below \(ContentTypeAgreementTests.requiredAgreement)")
    }
}

import ArgumentParser
import Glibc
import SchemeBridgeCore

/// `schemebridge devices [--allow ID]`: the devices whose shares are never offered or opened
/// ("Not from this device" in a received-transfer notification), and taking one off the list.
/// The list is the user's file (``BlockedDevices``); the service reads it for every share a
/// device sends, so a change counts from the next one.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices whose shares are never offered or opened (\"Not from this device\"), or allow one again.",
        discussion: """
            Each line is DEVICE-ID NAME: what that device sends through KDE Connect stays where the engine put \
            it (the download folder) and is only logged. The list is kept in ~/.config/schemebridge/blocked-devices. \
            --allow ID takes a device off it (exit 3 when it was not on it).
            """)

    @Option(name: .long, help: ArgumentHelp("Offer what device ID sends again.", valueName: "id"))
    var allow: String?

    @OptionGroup var output: OutputOptions

    func run() throws {
        var environment: [String: String] = [:]
        for key in ["HOME", "XDG_CONFIG_HOME"] { if let v = getenv(key) { environment[key] = String(cString: v) } }
        let path = BlockedDevices.defaultPath(directories: XDGDirectories(environment: environment))
        var list = BlockedDevices.load(path)
        guard let allow else {
            if output.json {
                JSON.out([("devices", .array(list.entries.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) }))])
            } else {
                for e in list.entries { Terminal.out("\(e.id)\t\(e.name)") }
            }
            return
        }
        let mark = Terminal.errors.count
        let removed = list.remove(allow)
        if removed {
            do throws(FileSystemError) { try list.save(path) } catch {
                Terminal.error("cannot write \(path): \(error)")
                throw ExitStatus.failed.exitCode
            }
        } else {
            Terminal.error("\(allow.prefix(128)) is not on the list of devices whose shares are not offered")
        }
        if output.json {
            var members: [(String, JSON.Value)] = [("id", .string(allow)), ("allowed", .bool(removed))]
            if !removed { members.append(("error", JSON.error(.noHandler, since: mark))) }
            JSON.out(members)
        }
        if !removed { throw ExitStatus.noHandler.exitCode }
    }
}

/// A share a device sent, with the id of the device it came from.
public struct ReceivedFromDevice: Sendable, Equatable {
    /// The engine's id of the device.
    public let deviceID: String
    /// What it sent (a file, or text), where the engine put it.
    public let share: ReceivedShare
    /// The engine's working directory when it announced the share (where KDE Connect writes
    /// received text: ``ReceivedPlaces``); nil when unknown.
    public var engineDirectory: String? = nil

    /// A share `deviceID` sent.
    public init(deviceID: String, share: ReceivedShare, engineDirectory: String? = nil) {
        self.deviceID = deviceID
        self.share = share
        self.engineDirectory = engineDirectory
    }
}

extension ReceivedFromDevice {
    /// The folder of the first file among `items` (else of the first item).
    public static func folder(of items: [ReceivedFromDevice]) -> String? {
        let first = items.first { if case .file = $0.share { return true } else { return false } } ?? items.first
        return first.map { item in
            let path = item.share.path
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
            return String(path[..<slash])
        }
    }
}

extension ReceivedShare {
    /// The path the engine named.
    public var path: String {
        switch self {
        case .file(let p), .text(let p): p
        }
    }
}

/// What is known of a share sent to a nearby device, as the request's `Response` says it
/// (result `delivery`): the engine only took it, its sending end finished, it failed, or it was
/// followed and did not end within the time allowed.
public enum DeviceDelivery: String, Sendable, Equatable, CaseIterable {
    /// The engine took the share; nothing it reports says more (text, URLs, GSConnect, a KDE
    /// Connect whose job reports go to another job viewer, a transfer that ended before the
    /// engine reported it at all).
    case handedToEngine = "handed-to-engine"
    /// The sending engine reported its transfer finished without error: every byte went to
    /// the receiving engine. (Whether the receiving engine stored it, the sender cannot know.)
    case delivered
    /// The sending engine reported the transfer failed, was cancelled, or stopped mid-transfer.
    case failed
    /// The transfer was followed, but had not ended when the time allowed ran out.
    case unknown
}

/// One file-transfer job as the engine reports it through the KDE job tracker
/// (`org.kde.JobViewV3`: `update(a{sv})`, then `terminate(errorCode, errorMessage, hints)`),
/// reduced to what decides a share's answer, its progress, and whether a transfer from a device
/// stopped moving (``ReceiveStallRule``). KDE Connect reports what it sends ("Sending to
/// <device>", the file in `descriptionValue1`, `destUrl` empty) and what it receives (`destUrl` the
/// download folder, the device in `descriptionValue1`, the file being written in `descriptionValue2`).
public struct EngineJob: Sendable, Equatable {
    /// `title` ("Sending to <device>", "Receiving file").
    public var title = ""
    /// The file being sent or written now (a sent file's name; a received file's path).
    public var currentFile = ""
    /// Every file the job named while it ran.
    public var files: Set<String> = []
    /// Whether the job receives from a device (its `destUrl` names a folder).
    public var receiving = false
    /// The device a receiving job is from, as the engine names it.
    public var source = ""
    public var processedBytes: UInt64 = 0
    public var totalBytes: UInt64 = 0
    /// `percent` when the engine gave one.
    public var percent: UInt32?
    /// Set once the job ended: its error code (0: none).
    public var endCode: UInt32?
    /// The engine's error message when it ended with an error.
    public var endMessage = ""

    public init() {}

    /// Applies one `update` (or `requestView`'s hints): the keys KJobWidgets sends; others are ignored.
    public mutating func apply(strings: [String: String], numbers: [String: UInt64]) {
        if let t = strings["title"] { title = t }
        // KJobWidgets sends `destUrl` for every job; only a receiving one has a folder in it.
        if let folder = strings["destUrl"], !folder.isEmpty { receiving = true }
        if receiving {
            if let d = strings["descriptionValue1"], !d.isEmpty { source = d }
            if let f = strings["descriptionValue2"], !f.isEmpty { currentFile = f; files.insert(f) }
        } else if let f = strings["descriptionValue1"], !f.isEmpty { currentFile = f; files.insert(f) }
        if let p = numbers["processedBytes"] { processedBytes = p }
        if let t = numbers["totalBytes"] { totalBytes = t }
        if let p = numbers["percent"] { percent = UInt32(min(p, 100)) }
        if numbers["terminated"].map({ $0 != 0 }) == true {
            end(code: UInt32(truncatingIfNeeded: numbers["errorCode"] ?? 0), message: strings["errorMessage"] ?? "")
        }
    }

    /// Records the job's end (`terminate`).
    public mutating func end(code: UInt32, message: String) {
        endCode = code
        endMessage = message
    }

    /// The share's progress in percent: the engine's own, else from the byte counts.
    public var progress: UInt32? {
        if let percent { return percent }
        guard totalBytes > 0 else { return nil }
        return UInt32(min(100, processedBytes.multipliedReportingOverflow(by: 100).partialValue / totalBytes))
    }
}

/// How a followed device share ends, and what its `Response` says (``DeviceDelivery``).
public enum DeviceDeliveryRule {
    /// The answer for a followed job: `job` as last reported (nil: no report arrived), whether the
    /// engine left meanwhile, whether the time allowed ran out. Returns the delivery and, for
    /// anything but `delivered`/`handed-to-engine`, the reason for `error-message`.
    public static func outcome(job: EngineJob?, engineLeft: Bool, timedOut: Bool, device: String, engine: String) -> (DeviceDelivery, String?) {
        if let job, let code = job.endCode {
            if code == 0 { return (.delivered, nil) }
            // KJob's KilledJobError (1): the job was cancelled (the notification's Cancel, say).
            if code == 1 && job.endMessage.isEmpty { return (.failed, "the transfer to \(device) was cancelled") }
            let why = job.endMessage.isEmpty ? "error \(code)" : job.endMessage
            return (.failed, "\(engine) reported the transfer to \(device) failed: \(why)")
        }
        if engineLeft {
            return (.failed, "\(engine) stopped before the transfer to \(device) ended")
        }
        guard job != nil else { return (.handedToEngine, nil) }
        if timedOut {
            let done = job?.progress.map { " (\($0)% sent)" } ?? ""
            return (.unknown, "the transfer to \(device) had not ended when the time allowed ran out\(done): whether it arrives is unknown")
        }
        return (.unknown, "the transfer to \(device) was not followed to its end")
    }

    /// Whether the job view `job` is the one for a share of files named `names`: it sends, and
    /// it names one of them or none yet (KJobWidgets sends the description with the first update).
    public static func matches(_ job: EngineJob, names: Set<String>) -> Bool {
        !job.receiving && (job.files.isEmpty || !job.files.isDisjoint(with: names))
    }
}

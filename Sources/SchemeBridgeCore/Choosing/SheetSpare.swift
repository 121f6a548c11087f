import Glibc
import Synchronization

/// The warm share sheet: one `schemebridge-sheet --spare` kept started ahead of the next share,
/// its python, GTK and display connection ready, waiting for the request on its stdin (the
/// request's environment as `NAME=VALUE` lines, an empty line, then the candidate lines:
/// docs/CONTRACT.md, "The share sheet"). A share takes it (``ask(program:environment:input:timeout:)``)
/// and a new one is started at once. One that ends unasked is started again after 1 s, then
/// 2, 4, … at most 5 minutes while it keeps failing (back to 1 s after one lived a minute).
/// None is started without a display, with `[Chooser] SpareSheet=false`, or while another chooser
/// than the shipped one is configured. The cold start it saves: python (~30 ms), `import Gtk`
/// (~100 ms) and the first window's styles and fonts, of CPU, before anything is drawn.
public final class SheetSpare: Sendable {
    private struct State {
        var spare: PrestartedChooser?
        /// Ends unasked in a row; decides the back-off.
        var failures = 0
        /// A start is scheduled (back-off) or under way.
        var pending = false
        /// The latest start; an end reported for an earlier one is not the waiting spare's.
        var generation = 0
        /// The latest start ended before `launch` had kept it: its status and lifetime.
        var endedEarly: (status: Int32, lived: Duration)?
    }
    private let state = Mutex(State())
    private let environment: [String: String]
    /// Where what happens to spares is told (`notice`: a spare could not start or ended by itself).
    private let log: @Sendable (_ notice: Bool, _ message: String) -> Void
    private let launcher = ProcessLauncher()
    /// Whether spares are wanted now (`[Chooser] SpareSheet=`, and the shipped sheet is the chooser).
    private let enabled: @Sendable () -> Bool

    /// The variables a spare is told per request (the rest of its environment is the service's).
    static let requestVariables: Set<String> = [
        "SCHEMEBRIDGE_CHOOSER_SUBJECT", "SCHEMEBRIDGE_CHOOSER_KIND", "SCHEMEBRIDGE_CHOOSER_CALLER", "SCHEMEBRIDGE_CHOOSER_CALLER_NAME",
        "SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER", "SCHEMEBRIDGE_CHOOSER_TITLE", "SCHEMEBRIDGE_SHARE_TYPES", "SCHEMEBRIDGE_SHARE_COUNT",
        "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID",
    ]
    /// The longest pause between restarts of a spare that keeps ending.
    static let maximumBackoff = 300

    /// `environment`: the chooser's base environment (no activation token: each request brings its own).
    public init(environment: [String: String], log: @escaping @Sendable (_ notice: Bool, _ message: String) -> Void,
                enabled: @escaping @Sendable () -> Bool) {
        self.environment = environment
        self.log = log
        self.enabled = enabled
    }

    /// Whether the session has a display a sheet can open.
    var hasDisplay: Bool { !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty }

    /// Starts a spare of `program` unless one is there or on its way (or spares are off).
    public func prepare(program: String) {
        guard hasDisplay, enabled() else { return discard() }
        let start = state.withLock { s in
            if let spare = s.spare, spare.program == program, !spare.hasExited { return false }
            if s.pending { return false }
            s.pending = true
            return true
        }
        if start { launch(program) }
    }

    /// Shows the sheet `program`: the spare when one is ready (else `cold`, the ordinary run),
    /// then starts the next spare, once this sheet is gone (so the two do not compete for the CPU).
    public func run(program: String, environment request: [String: String], input: [UInt8], timeout: Duration,
             cold: () async -> ChooserProcess.Outcome) async -> ChooserProcess.Outcome {
        let outcome: ChooserProcess.Outcome
        if let warm = await ask(program: program, environment: request, input: input, timeout: timeout) { outcome = warm } else { outcome = await cold() }
        prepare(program: program)
        return outcome
    }

    /// Asks the spare of `program`. Nil when there is no usable spare (none yet, another
    /// program's, ended, spares off).
    private func ask(program: String, environment request: [String: String], input: [UInt8], timeout: Duration) async -> ChooserProcess.Outcome? {
        let spare = state.withLock { s -> PrestartedChooser? in
            defer { s.spare = nil }
            return s.spare
        }
        guard let spare else { return nil }
        guard spare.program == program, enabled() else {
            spare.stop()
            return nil
        }
        log(false, "showing the share sheet started ahead (pid \(spare.pid))")
        return await spare.ask(Self.request(request, base: environment) + input, timeout: timeout)
    }

    /// Stops the spare (the configuration turned it off, or another chooser is configured).
    public func discard() {
        state.withLock { s -> PrestartedChooser? in
            defer { s.spare = nil }
            return s.spare
        }?.stop()
    }

    /// The request's header: each per-request variable whose value differs from the spare's
    /// environment as `NAME=VALUE` (control characters become spaces), then an empty line.
    static func request(_ env: [String: String], base: [String: String]) -> [UInt8] {
        var header = ""
        for name in requestVariables.sorted() {
            guard let value = env[name], value != base[name] else { continue }
            header += name + "=" + String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }) + "\n"
        }
        return Array((header + "\n").utf8)
    }

    private func launch(_ program: String) {
        let started = ContinuousClock.now
        let generation = state.withLock { s in
            s.generation += 1
            s.endedEarly = nil
            return s.generation
        }
        let result: PrestartedChooser?
        do {
            result = try PrestartedChooser.start(argv: [program, "--spare"], environment: environment, launcher: launcher) { [weak self] status in
                self?.ended(program: program, generation: generation, status: status, after: ContinuousClock.now - started)
            }
        } catch {
            log(true, "cannot start a share sheet ahead: \(error.reason)")
            result = nil
        }
        if let pid = result?.pid { log(false, "a share sheet is started ahead of the next share (pid \(pid))") }
        let (replaced, early) = state.withLock { s -> (PrestartedChooser?, Int?) in
            s.pending = false
            let replaced = s.spare
            s.spare = result
            guard let ended = s.endedEarly else { return (replaced, nil) }
            s.endedEarly = nil
            return (replaced, restart(&s, status: ended.status, lived: ended.lived))
        }
        replaced?.stop()
        if let early {
            result?.stop()  // ended already: this closes its pipes
            schedule(program, after: early)
        }
    }

    /// A spare ended: when it was still the waiting one, another is started after the back-off.
    private func ended(program: String, generation: Int, status: Int32, after lived: Duration) {
        let ended = state.withLock { s -> (PrestartedChooser, Int)? in
            guard generation == s.generation else { return nil }
            if s.pending {
                s.endedEarly = (status, lived)  // launch has not kept it yet: it restarts it
                return nil
            }
            guard let spare = s.spare, spare.hasExited else { return nil }  // asked (taken), or stopped
            return (spare, restart(&s, status: status, lived: lived))
        }
        if let (spare, delay) = ended {
            spare.stop()  // ended already: this closes its pipes
            schedule(program, after: delay)
        }
    }

    /// Forgets the ended spare and counts the failure; the pause before the next start (s).
    private func restart(_ s: inout State, status: Int32, lived: Duration) -> Int {
        s.spare = nil
        let delay: Int
        (s.failures, delay) = Self.backoff(failures: s.failures, lived: lived)
        s.pending = true
        log(true, "the share sheet started ahead ended by itself (status \(status)); another in \(delay) s")
        return delay
    }

    /// The back-off after a spare that lived `lived` ended unasked, `failures` ends in a row
    /// before it: the new count, and the pause before the next start (s): 1, 2, 4, … at most
    /// ``maximumBackoff``; back to 1 after one that lived a minute.
    static func backoff(failures: Int, lived: Duration) -> (failures: Int, delay: Int) {
        let failures = lived >= .seconds(60) ? 1 : failures + 1
        return (failures, min(1 << min(failures - 1, 9), maximumBackoff))
    }

    private func schedule(_ program: String, after delay: Int) {
        Task.detached { [self] in
            try? await Task.sleep(for: .seconds(delay))
            launch(program)
        }
    }
}

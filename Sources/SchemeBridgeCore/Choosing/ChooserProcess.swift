import CLinux
import Glibc
import LinuxSystem
import Synchronization

/// Runs a chooser program: its input on stdin, its answer read from stdout, stopped when it
/// takes too long. The waiting happens on a thread of its own (one `poll` over the pipes and an
/// eventfd the exit is reported on); the calling task is suspended, so neither the D-Bus loop
/// thread nor the shared task threads wait for a person to pick. The program is started by
/// ``ProcessLauncher`` (argv as given, never a shell, a new session, a clean signal mask) and
/// signalled only through a pidfd opened before it could be reaped, never by a pid that may
/// have been reused.
public enum ChooserProcess {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// The program exited with `status` (128+signal when killed) after printing `output`.
        case finished(status: Int32, output: [UInt8])
        /// It did not finish in time and was stopped (SIGTERM, then SIGKILL 2 s later).
        case timedOut
        /// It could not be started.
        case failedToStart(LaunchError)
    }

    /// At most this much of the program's output is kept (a choice is one short line).
    public static let outputLimit = 64 * 1024

    /// Runs `argv` with `environment`, writes `input` to its stdin (then closes it), and returns
    /// once it has exited (or been stopped after `timeout`). Its stderr is the service's own. A
    /// cancel of the calling task stops it (SIGTERM): the person's request went away (the portal
    /// closed its request), so the dialog goes; a dialog ended by a signal is a cancel.
    public static func run(argv: [String], environment: [String: String], input: [UInt8], timeout: Duration,
                           launcher: ProcessLauncher = ProcessLauncher()) async -> Outcome {
        switch spawn(argv: argv, environment: environment, launcher: launcher, onExit: nil) {
        case .failure(let error): return .failedToStart(error)
        case .success(let run): return await run.waitOnItsThread(input: input, timeout: timeout)
        }
    }

    /// Starts `argv` with its stdin a socket and its stdout a pipe, both kept by the ``Run``
    /// returned; `onExit` (if given) hears the exit status too.
    static func spawn(argv: [String], environment: [String: String], launcher: ProcessLauncher,
                      onExit: (@Sendable (Int32) -> Void)?) -> Result<Run, LaunchError> {
        // stdin is a socket, so a write to a chooser that went away is EPIPE, never SIGPIPE.
        var sockets: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            return .failure(LaunchError(program: argv.first ?? "", code: errno, reason: "cannot make its input: \(Errno.current)"))
        }
        // Each closed once, by its owner: ours by the run, the child's ends below.
        let input = FileDescriptor(owning: sockets[0]), childInput = FileDescriptor(owning: sockets[1])
        guard pipe(&output) == 0 else {
            let e = Errno.current
            return .failure(LaunchError(program: argv.first ?? "", code: e.code, reason: "cannot make its output: \(e)"))
        }
        let outputRead = FileDescriptor(owning: output[0]), childOutput = FileDescriptor(owning: output[1])
        // Close-on-exec (no child of ours inherits more than its own three descriptors anyway).
        for fd in sockets + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let run = Run(input: input, output: outputRead)
        var failure: LaunchError?
        do {
            _ = try launcher.spawn(argv: argv, environment: environment, stdin: childInput.rawValue, stdout: childOutput.rawValue, stderr: STDERR_FILENO,
                                   onStart: { pid in run.started(pid) }, onExit: { code in run.exited(code); onExit?(code) })
        } catch {
            failure = error
        }
        // The child has its copies of its ends now (or never started): ours close here.
        _ = consume childInput
        _ = consume childOutput
        if let failure {
            run.closeAll()
            return .failure(failure)
        }
        return .success(run)
    }

    /// One running chooser: its descriptors, and what the reaper reported.
    final class Run: Sendable {
        /// The descriptors' numbers, valid until ``closeAll()`` (which `owned` decides).
        private let inputFD: Int32, outputFD: Int32, wakeFD: Int32
        private struct Descriptors: ~Copyable {
            let input: FileDescriptor, output: FileDescriptor, wake: FileDescriptor?
        }
        /// Owns the three descriptors until ``closeAll()`` drops them.
        private let owned: Mutex<Descriptors?>
        private struct State: ~Copyable {
            /// The pidfd (owned), and its number for signalling.
            var pidfdOwner: FileDescriptor? = nil
            var pidfd: Int32 = -1
            var pid: Int32 = 0
            var exitCode: Int32?
            /// Nobody waits for it (a spare stopped unasked): its descriptors close when it ends.
            var closeOnExit = false
            var closed = false
        }
        private let state = Mutex(State())

        init(input: consuming FileDescriptor, output: consuming FileDescriptor) {
            inputFD = input.rawValue
            outputFD = output.rawValue
            wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
            _ = fcntl(inputFD, F_SETFL, O_NONBLOCK)
            _ = fcntl(outputFD, F_SETFL, O_NONBLOCK)
            var wake: FileDescriptor? = nil
            if wakeFD >= 0 { wake = FileDescriptor(owning: wakeFD) }
            owned = Mutex(Descriptors(input: input, output: output, wake: wake))
        }

        func started(_ pid: Int32) {
            let fd = clinux_pidfd_open(pid)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            state.withLock { s in
                if fd >= 0 { s.pidfdOwner = FileDescriptor(owning: fd) }
                s.pidfd = fd
                s.pid = pid
            }
        }

        func exited(_ code: Int32) {
            let (unwatched, closed) = state.withLock { s in
                s.exitCode = code
                return (s.closeOnExit, s.closed)
            }
            if unwatched { return closeAll() }
            guard !closed else { return }  // its waiter gave up (timed out) and closed the eventfd
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }

        /// Stops a program nobody will wait for (SIGTERM); its descriptors are closed once it
        /// has ended (at once when it has).
        func stopUnwatched() {
            signal(SIGTERM)
            let ended = state.withLock { s in
                s.closeOnExit = true
                return s.exitCode != nil
            }
            if ended { closeAll() }
        }

        /// The pid, and whether the program has been reported ended.
        var status: (pid: Int32, exited: Bool) { state.withLock { ($0.pid, $0.exitCode != nil) } }

        /// Signals the program while it has not been reported ended (so never another process).
        func signal(_ sig: Int32) {
            state.withLock { s in
                guard s.exitCode == nil else { return }
                if s.pidfd >= 0 { _ = clinux_pidfd_send_signal(s.pidfd, sig) } else if s.pid > 0 { _ = kill(s.pid, sig) }
            }
        }

        /// ``wait(input:timeout:)`` on a thread of its own, the calling task suspended; a cancel
        /// of that task stops the program (SIGTERM), and its end is the outcome.
        func waitOnItsThread(input: [UInt8], timeout: Duration) async -> Outcome {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    OSThread.detached(name: "chooser") { continuation.resume(returning: self.wait(input: input, timeout: timeout)) }
                }
            } onCancel: {
                self.signal(SIGTERM)
            }
        }

        /// The poll loop: feeds `input` to stdin, collects stdout, and ends when the program has
        /// exited (stopped after `timeout`).
        func wait(input: [UInt8], timeout: Duration) -> Outcome {
            defer { closeAll() }
            let start = Self.milliseconds()
            let limit = Int64(timeout.components.seconds) * 1000 + Int64(timeout.components.attoseconds / 1_000_000_000_000_000)
            var termAt: Int64? = nil, killAt: Int64? = nil
            var written = 0, inputOpen = true, outputOpen = true
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            if input.isEmpty { shutdown(inputFD, Int32(SHUT_WR)); inputOpen = false }
            while true {
                if let code = state.withLock({ $0.exitCode }) {
                    // Whatever it wrote before it exited is in the pipe now.
                    while outputOpen, let n = readSome(&buffer), n > 0 { append(buffer[0..<n], to: &output) }
                    return termAt == nil ? .finished(status: code, output: output) : .timedOut
                }
                let now = Self.milliseconds()
                if termAt == nil && now - start >= limit {
                    termAt = now
                    killAt = now + 2000
                    signal(SIGTERM)
                } else if let k = killAt, now >= k {
                    killAt = nil
                    signal(SIGKILL)
                } else if let t = termAt, now - t > 10_000 {
                    // Not reported ended even after SIGKILL (stuck in the kernel): the reaper
                    // still reaps it when it goes; the answer cannot wait any longer.
                    return .timedOut
                }
                var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
                if outputOpen { fds.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
                if inputOpen { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
                let next = killAt ?? (termAt == nil ? start + limit : now + 1000)
                _ = poll(&fds, nfds_t(fds.count), Int32(clamping: max(next - now, 0) + 1))
                if outputOpen {
                    switch readSome(&buffer) {
                    case .some(0): outputOpen = false
                    case .some(let n): append(buffer[0..<n], to: &output)
                    case .none: break
                    }
                }
                if inputOpen {
                    let n = input.withUnsafeBytes { send(inputFD, $0.baseAddress! + written, input.count - written, Int32(MSG_NOSIGNAL)) }
                    if n > 0 { written += n }
                    if written == input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        shutdown(inputFD, Int32(SHUT_WR))
                        inputOpen = false
                    }
                }
                var drained: UInt64 = 0
                _ = read(wakeFD, &drained, 8)
            }
        }

        /// Reads what is there: the count (0 at end of file), nil when nothing is ready.
        private func readSome(_ buffer: inout [UInt8]) -> Int? {
            let n = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            return errno == EAGAIN || errno == EINTR ? nil : 0
        }

        private func append(_ bytes: ArraySlice<UInt8>, to output: inout [UInt8]) {
            output.append(contentsOf: bytes.prefix(ChooserProcess.outputLimit - output.count))
        }

        func closeAll() {
            guard state.withLock({ s in defer { s.closed = true }; return !s.closed }) else { return }
            owned.withLock { $0 = nil }
            state.withLock { s in
                s.pidfdOwner = nil
                s.pidfd = -1
            }
        }

        static func milliseconds() -> Int64 {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        }
    }
}

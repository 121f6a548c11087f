import CX11
import Glibc
import Synchronization

/// Xlib's error handlers are C function pointers without context, so what they record lives in
/// these process-wide atomics (the only global mutable state of the helper).
private let xErrorCount = Atomic<Int>(0)
private let xLastErrorCode = Atomic<Int>(0)

/// Non-fatal X protocol errors, and a clean end on a lost connection.
///
/// Windows of other clients can vanish between an event and our query of them (BadWindow), so a
/// protocol error must never end the helper: the handler counts it and returns, and callers that
/// care compare ``count`` around a request after `XSync`. An I/O error (the server went away) ends
/// the helper at once with ``ExitStatus/xFailure`` — Xlib does not allow the handler to return, and
/// the window is gone with the connection anyway.
enum XErrorTrap {
    /// Installs both handlers. Call once, before `XOpenDisplay`.
    static func install() {
        _ = XSetErrorHandler { _, event in
            xErrorCount.add(1, ordering: .relaxed)
            if let event { xLastErrorCode.store(Int(event.pointee.error_code), ordering: .relaxed) }
            return 0
        }
        _ = XSetIOErrorHandler { _ in
            writeStderr("schemebridge-splash: lost the connection to the X display")
            _exit(ExitStatus.xFailure.rawValue)
        }
    }

    /// How many protocol errors have been seen so far.
    static var count: Int { xErrorCount.load(ordering: .relaxed) }

    /// The error code of the last protocol error (e.g. 3 for BadWindow).
    static var lastCode: Int { xLastErrorCode.load(ordering: .relaxed) }
}

import CX11
import DBusTestSupport
import Foundation

/// Milliseconds on CLOCK_MONOTONIC (the helper's clock too).
func nowMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

/// A display connection handed to the recorder's thread, which is then its only user.
private struct DisplayHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Watches the root window of a test server from its own connection and thread, stamping each
/// top-level create/map/unmap/destroy and each startup-notification message with the monotonic
/// time it arrived. Both ends of a measured interval arrive on this one connection, so their
/// difference is the server-side gap plus the helper's reaction, not the test's scheduling.
final class XEventRecorder: @unchecked Sendable {
    enum Kind: Sendable, Equatable { case create, map, unmap, destroy }

    /// One top-level window event.
    struct WindowEvent: Sendable {
        let time: Double
        let kind: Kind
        let window: UInt
        /// WM_CLASS res_class read when the window was mapped (or created), "" if unset then.
        let resClass: String
    }

    private let lock = NSLock()
    private var windowEvents: [WindowEvent] = []
    private var startupMessages: [String] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    /// Connects to `xvfb` and starts recording; events after `init` returns are never missed.
    init(_ xvfb: Xvfb) throws {
        guard let dpy = XOpenDisplay(xvfb.display) else { throw TestFailure("cannot open \(xvfb.display)") }
        let root = XDefaultRootWindow(dpy)
        _ = XSelectInput(dpy, root, SubstructureNotifyMask | PropertyChangeMask)
        _ = XSync(dpy, 0)
        let begin = XInternAtom(dpy, "_NET_STARTUP_INFO_BEGIN", 0), more = XInternAtom(dpy, "_NET_STARTUP_INFO", 0)
        let handle = DisplayHandle(pointer: dpy)
        let thread = Thread { [self] in
            let dpy = handle.pointer
            var partial: [Window: [UInt8]] = [:]
            var classes: [Window: String] = [:]
            func className(_ w: Window) -> String {
                var hint = XClassHint()
                guard XGetClassHint(dpy, w, &hint) != 0 else { return "" }
                var cls = ""
                if let n = hint.res_name { XFree(n) }
                if let c = hint.res_class { cls = String(cString: c); XFree(c) }
                return cls
            }
            var event = XEvent()
            while true {
                lock.lock(); let stop = stopped; lock.unlock()
                if stop { break }
                var pfd = pollfd(fd: XConnectionNumber(dpy), events: Int16(POLLIN), revents: 0)
                if XPending(dpy) == 0 { _ = poll(&pfd, 1, 20) }
                while XPending(dpy) > 0 {
                    XNextEvent(dpy, &event)
                    let t = nowMs()
                    var record: WindowEvent?
                    switch event.type {
                    case CreateNotify:
                        let w = event.xcreatewindow.window
                        record = WindowEvent(time: t, kind: .create, window: UInt(w), resClass: className(w))
                    case MapNotify:
                        let w = event.xmap.window
                        let cls = className(w)
                        if !cls.isEmpty { classes[w] = cls }
                        record = WindowEvent(time: t, kind: .map, window: UInt(w), resClass: classes[w] ?? cls)
                    case UnmapNotify:
                        let w = event.xunmap.window
                        record = WindowEvent(time: t, kind: .unmap, window: UInt(w), resClass: classes[w] ?? "")
                    case DestroyNotify:
                        let w = event.xdestroywindow.window
                        record = WindowEvent(time: t, kind: .destroy, window: UInt(w), resClass: classes[w] ?? "")
                    case ClientMessage where event.xclient.message_type == begin || event.xclient.message_type == more:
                        let sender = event.xclient.window
                        let chunk = withUnsafeBytes(of: event.xclient.data.b) { Array($0) }
                        var buffer = event.xclient.message_type == begin ? [] : (partial[sender] ?? [])
                        if let end = chunk.firstIndex(of: 0) {
                            buffer += chunk[..<end]
                            partial[sender] = nil
                            let text = String(decoding: buffer, as: UTF8.self)
                            lock.lock(); startupMessages.append(text); lock.unlock()
                        } else {
                            partial[sender] = buffer + chunk
                        }
                    default: break
                    }
                    if let record { lock.lock(); windowEvents.append(record); lock.unlock() }
                }
            }
            XCloseDisplay(dpy)
            done.signal()
        }
        thread.start()
    }

    /// Stops recording and closes the connection.
    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        if !already { done.wait() }
    }

    deinit { stop() }

    /// Everything recorded so far.
    var events: [WindowEvent] { lock.lock(); defer { lock.unlock() }; return windowEvents }

    /// Startup-notification messages seen so far, in order.
    var messages: [String] { lock.lock(); defer { lock.unlock() }; return startupMessages }

    /// The first map of a window with this WM_CLASS class.
    func firstMap(ofClass cls: String) -> WindowEvent? {
        events.first { $0.kind == .map && $0.resClass == cls }
    }

    /// The first unmap or destroy of `window` after it was mapped.
    func firstGone(_ window: UInt) -> WindowEvent? {
        events.first { ($0.kind == .unmap || $0.kind == .destroy) && $0.window == window }
    }

    /// The helper's splash window, once mapped.
    var splashMap: WindowEvent? { firstMap(ofClass: "schemebridge-splash") }
}

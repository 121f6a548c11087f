import CX11
import DBusTestSupport
import Foundation

/// A minimal reparenting window manager for the tests, on its own connection and thread: it
/// announces itself with `_NET_SUPPORTING_WM_CHECK`, and on each MapRequest puts the client in a
/// frame 20 px taller (a "title bar"), sets WM_STATE, maps the frame and 30 ms later the client
/// (openbox's order; others map the client first, which the frame's MapNotify covers). It records what it managed and when.
final class MiniWindowManager: @unchecked Sendable {
    /// A client the manager framed.
    struct Managed: Sendable {
        let client: UInt
        let resClass: String
        /// When the client was mapped in its mapped frame (it became visible), monotonic ms.
        let framedAt: Double
        /// The client's `_NET_WM_WINDOW_TYPE` atom names, `_NET_WM_STATE` names, Motif hints,
        /// `_NET_WM_PID`, and whether it asked for override-redirect (it then never gets here).
        let windowTypes: [String], states: [String], motifHints: [Int], pid: Int?
    }

    private let lock = NSLock()
    private var managed: [Managed] = []
    private var gone: [UInt: Double] = [:]
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    /// Starts managing the screen of `xvfb`.
    init(_ xvfb: Xvfb) throws {
        guard let dpy = XOpenDisplay(xvfb.display) else { throw TestFailure("cannot open \(xvfb.display)") }
        let root = XDefaultRootWindow(dpy)
        let check = XCreateSimpleWindow(dpy, root, -10, -10, 1, 1, 0, 0, 0)
        let checkAtom = XInternAtom(dpy, "_NET_SUPPORTING_WM_CHECK", 0)
        for w in [root, check] {
            var value = [Int(check)]
            _ = XChangeProperty(dpy, w, checkAtom, Atom(XA_WINDOW), 32, PropModeReplace,
                                withUnsafeBytes(of: &value[0]) { $0.bindMemory(to: UInt8.self).baseAddress }, 1)
        }
        _ = XSelectInput(dpy, root, SubstructureRedirectMask | SubstructureNotifyMask)
        _ = XSync(dpy, 0)
        let handle = WMDisplay(pointer: dpy)
        let thread = Thread { [self] in self.loop(handle.pointer, root: root) }
        thread.start()
    }

    private func atomNames(_ dpy: OpaquePointer, _ w: Window, _ property: String) -> [String] {
        longs(dpy, w, property).map { atom in
            guard let name = XGetAtomName(dpy, Atom(UInt(bitPattern: atom))) else { return "" }
            defer { XFree(name) }
            return String(cString: name)
        }
    }

    private func longs(_ dpy: OpaquePointer, _ w: Window, _ property: String) -> [Int] {
        var type: Atom = 0, format: Int32 = 0, count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard XGetWindowProperty(dpy, w, XInternAtom(dpy, property, 0), 0, 64, 0, 0, &type, &format, &count, &after, &data) == Success,
              let data else { return [] }
        defer { XFree(data) }
        guard format == 32 else { return [] }
        return data.withMemoryRebound(to: Int.self, capacity: Int(count)) { p in (0..<Int(count)).map { p[$0] } }
    }

    private func loop(_ dpy: OpaquePointer, root: Window) {
        var frames: [Window: Window] = [:]  // client → frame
        var event = XEvent()
        let wmState = XInternAtom(dpy, "WM_STATE", 0)
        while true {
            lock.lock(); let stop = stopped; lock.unlock()
            if stop { break }
            var pfd = pollfd(fd: XConnectionNumber(dpy), events: Int16(POLLIN), revents: 0)
            if XPending(dpy) == 0 { _ = poll(&pfd, 1, 20) }
            while XPending(dpy) > 0 {
                XNextEvent(dpy, &event)
                switch event.type {
                case MapRequest:
                    let client = event.xmaprequest.window
                    var attributes = XWindowAttributes()
                    guard XGetWindowAttributes(dpy, client, &attributes) != 0 else { continue }
                    let frame = XCreateSimpleWindow(dpy, root, attributes.x, attributes.y, UInt32(attributes.width),
                                                    UInt32(attributes.height + 20), 0, 0, 0x808080)
                    _ = XSelectInput(dpy, frame, SubstructureNotifyMask)
                    _ = XReparentWindow(dpy, client, frame, 0, 20)
                    var state = [1, 0]  // NormalState, no icon
                    _ = XChangeProperty(dpy, client, wmState, wmState, 32, PropModeReplace,
                                        withUnsafeBytes(of: &state[0]) { $0.bindMemory(to: UInt8.self).baseAddress }, 2)
                    // The frame first, the client a moment later (as openbox does): a helper
                    // looking only at the frame's map would miss the client.
                    _ = XMapWindow(dpy, frame)
                    _ = XSync(dpy, 0)
                    usleep(30_000)
                    _ = XMapWindow(dpy, client)
                    _ = XSync(dpy, 0)
                    let visibleAt = nowMs()
                    frames[client] = frame
                    var hint = XClassHint()
                    var cls = ""
                    if XGetClassHint(dpy, client, &hint) != 0 {
                        if let n = hint.res_name { XFree(n) }
                        if let c = hint.res_class { cls = String(cString: c); XFree(c) }
                    }
                    let pid = longs(dpy, client, "_NET_WM_PID").first
                    let record = Managed(client: UInt(client), resClass: cls, framedAt: visibleAt,
                                         windowTypes: atomNames(dpy, client, "_NET_WM_WINDOW_TYPE"),
                                         states: atomNames(dpy, client, "_NET_WM_STATE"),
                                         motifHints: longs(dpy, client, "_MOTIF_WM_HINTS"), pid: pid)
                    lock.lock(); managed.append(record); lock.unlock()
                case ConfigureRequest:
                    let r = event.xconfigurerequest
                    var changes = XWindowChanges(x: r.x, y: r.y, width: r.width, height: r.height, border_width: r.border_width,
                                                 sibling: r.above, stack_mode: r.detail)
                    _ = XConfigureWindow(dpy, r.window, UInt32(r.value_mask), &changes)
                case UnmapNotify, DestroyNotify:
                    let client = event.type == UnmapNotify ? event.xunmap.window : event.xdestroywindow.window
                    if let frame = frames.removeValue(forKey: client) {
                        let t = nowMs()
                        lock.lock(); if gone[UInt(client)] == nil { gone[UInt(client)] = t }; lock.unlock()
                        _ = XDestroyWindow(dpy, frame)
                    }
                default: break
                }
            }
        }
        XCloseDisplay(dpy)
        done.signal()
    }

    /// Stops managing (the frames go with the connection).
    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        if !already { done.wait() }
    }

    deinit { stop() }

    /// The first client framed with this WM_CLASS class.
    func managed(ofClass cls: String) -> Managed? {
        lock.lock(); defer { lock.unlock() }
        return managed.first { $0.resClass == cls }
    }

    /// When the client was unmapped or destroyed (its frame then went too).
    func goneAt(_ client: UInt) -> Double? {
        lock.lock(); defer { lock.unlock() }
        return gone[client]
    }
}

/// The manager's connection handed to its thread, then its only user.
private struct WMDisplay: @unchecked Sendable {
    let pointer: OpaquePointer
}

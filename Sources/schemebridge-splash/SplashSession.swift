import CX11
import Glibc

/// One launch image from start to take-down: the X connection, the window, the watches and the
/// poll loop over the X connection, the signalfd, the handler's pidfd and a timer.
final class SplashSession {
    private let options: SplashOptions
    private let log: Log
    private let signals: SignalWatcher
    private let display: OpaquePointer
    private let screen: Int32
    private let root: Window
    private let atoms: Atoms
    private let image: RGBAImage
    private let splash: SplashWindow
    private let matcher: WindowMatcher
    private let handlerWatch: HandlerExitWatch?
    private var assembler = StartupNotification.Assembler()
    private var announced = false

    private let showAt: Int64
    private let timeoutAt: Int64
    private var mapRequestedAt: Int64?
    private var mappedAt: Int64?
    private var reason: TakedownReason?
    private var immediate = false

    /// Opens the display and creates the (unmapped) window for `image`. Throws
    /// ``ExitStatus/noDisplay`` when the display cannot be opened.
    init(options: SplashOptions, image original: RGBAImage, signals: SignalWatcher, log: Log) throws(SplashFailure) {
        self.options = options
        self.log = log
        self.signals = signals
        showAt = log.start + options.showDelayMs
        timeoutAt = log.start + options.timeoutMs

        XErrorTrap.install()
        let name = options.display ?? getenv("DISPLAY").map { String(cString: $0) }
        guard let name, !name.isEmpty else { throw SplashFailure(.noDisplay, "cannot open the X display: DISPLAY is not set") }
        guard let display = XOpenDisplay(name) else { throw SplashFailure(.noDisplay, "cannot open the X display '\(name)'") }
        _ = fcntl(XConnectionNumber(display), F_SETFD, FD_CLOEXEC)
        self.display = display
        screen = XDefaultScreen(display)
        root = XRootWindow(display, screen)
        atoms = Atoms(display: display)

        // The primary monitor is taken to be the whole screen (Xinerama/RandR are not linked).
        let screenWidth = Int(XDisplayWidth(display, screen)), screenHeight = Int(XDisplayHeight(display, screen))
        image = options.scaleToFit
            ? original.scaledToFit(maxWidth: screenWidth, maxHeight: screenHeight)
            : original.cropped(toWidth: screenWidth, height: screenHeight)
        let managed = Self.windowManagerRuns(display: display, root: root, atoms: atoms)
        log.event("display \(name) \(screenWidth)x\(screenHeight), window manager: \(managed ? "yes" : "no"), image \(original.width)x\(original.height) shown at \(image.width)x\(image.height)")

        let title = options.name ?? Self.baseName(options.imagePath)
        splash = SplashWindow(display: display, screen: screen, atoms: atoms, width: image.width, height: image.height,
                              managed: managed, title: title)
        // An opaque image needs nothing from the screen: its pixmap is made now, while the
        // show delay runs, so that showing is a mere map.
        if image.isOpaque {
            do throws(SplashFailure) {
                try splash.prepareBackground(image, screen: screen)
            } catch {
                splash.destroy()
                XCloseDisplay(display)
                throw error
            }
        }
        // Watch top-level windows and startup-notification broadcasts before looking at what
        // exists, so nothing falls between the scan and the events.
        _ = XSelectInput(display, root, SubstructureNotifyMask | PropertyChangeMask)
        matcher = WindowMatcher(display: display, root: root, atoms: atoms,
                                criteria: WindowCriteria(startupID: options.startupID, pid: options.pid, wmClass: options.wmClass),
                                ownWindow: splash.window)
        handlerWatch = options.pid.map { HandlerExitWatch(pid: $0) }
    }

    /// Whether a window manager runs: the root's `_NET_SUPPORTING_WM_CHECK` names a window whose
    /// own `_NET_SUPPORTING_WM_CHECK` names itself.
    private static func windowManagerRuns(display: OpaquePointer, root: Window, atoms: Atoms) -> Bool {
        guard let check = WindowProperties.window(display, root, atoms.netSupportingWMCheck), check != 0 else { return false }
        return WindowProperties.window(display, check, atoms.netSupportingWMCheck) == check
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    // MARK: - Running

    /// Runs until the image is taken down; returns the reason. Throws ``ExitStatus/xFailure``
    /// when the image cannot be shown; the window and the connection are gone either way.
    func run() throws(SplashFailure) -> TakedownReason {
        defer { cleanUp() }
        announce()
        if let watch = handlerWatch {
            if watch.alreadyGone { note(.handlerExited(watch.pid)) }
            else if watch.fd < 0 { log.event("pidfd_open failed (errno \(watch.pidfdError)); polling /proc for \(watch.pid)") }
        }
        if reason == nil, let found = matcher.scanExisting() { note(.handlerWindow(found)) }

        var event = XEvent()
        while true {
            while XPending(display) > 0 {
                XNextEvent(display, &event)
                handle(&event)
            }
            let now = monotonicMilliseconds()
            if now >= timeoutAt { note(.timeout) }
            if let watch = handlerWatch, watch.fd < 0, ProcessTree.hasExited(watch.pid) { note(.handlerExited(watch.pid)) }

            if let reason {
                guard let requested = mapRequestedAt else {
                    log.event("never shown: \(reason.description)")
                    return reason
                }
                let holdUntil = (mappedAt ?? requested) + options.minShowMs
                if immediate || now >= holdUntil {
                    log.event("taken down: \(reason.description) (shown \(now - (mappedAt ?? requested)) ms)")
                    return reason
                }
            } else if mapRequestedAt == nil && now >= showAt {
                try show()
                continue
            }
            _ = XFlush(display)
            if XEventsQueued(display, QueuedAlready) > 0 { continue }
            wait(now: now)
        }
    }

    /// Polls the X connection, the signalfd and the pidfd until the next deadline.
    private func wait(now: Int64) {
        var deadline = timeoutAt
        if reason == nil && mapRequestedAt == nil { deadline = min(deadline, showAt) }
        if reason != nil, let requested = mapRequestedAt { deadline = min(deadline, (mappedAt ?? requested) + options.minShowMs) }
        if let watch = handlerWatch, watch.fd < 0 { deadline = min(deadline, now + 100) }
        let timeout = Int32(clamping: max(0, deadline - now))

        var fds = [pollfd(fd: XConnectionNumber(display), events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
        if let watch = handlerWatch, watch.fd >= 0, reason == nil {
            fds.append(pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0))
        }
        let n = poll(&fds, nfds_t(fds.count), timeout)
        guard n > 0 else { return }
        if fds[1].revents != 0, let signal = signals.read() { note(.signal(signal)) }
        if fds.count > 2, fds[2].revents != 0, let watch = handlerWatch { note(.handlerExited(watch.pid)) }
        // X input is read by XPending at the top of the loop; a hang-up there ends in the I/O error handler.
    }

    /// Records the first reason to take the image down; a signal or the timeout later still
    /// cuts the minimum show time short.
    private func note(_ newReason: TakedownReason) {
        if reason == nil {
            reason = newReason
            log.event("handler up: \(newReason.description)")
        }
        if newReason.ignoresMinimumShowTime { immediate = true }
    }

    private func handle(_ event: inout XEvent) {
        switch event.type {
        case ClientMessage:
            let message = event.xclient
            guard message.format == 8,
                  message.message_type == atoms.netStartupInfoBegin || message.message_type == atoms.netStartupInfo else { return }
            let chunk = withUnsafeBytes(of: message.data.b) { Array($0) }
            guard let text = assembler.feed(sender: message.window, begin: message.message_type == atoms.netStartupInfoBegin, chunk: chunk),
                  let parsed = StartupNotification.parse(text) else { return }
            if parsed.type == "remove", let id = options.startupID, parsed.fields["ID"] == id {
                note(.startupComplete)
            } else if parsed.type == "remove" {
                log.event("startup notification remove: of another launch ignored (ID \(parsed.fields["ID"] ?? "none"))")
            }
        case CreateNotify:
            guard reason == nil, event.xcreatewindow.parent == root else { return }
            if let found = matcher.windowCreated(event.xcreatewindow.window) { note(.handlerWindow(found)) }
        case MapNotify:
            let window = event.xmap.window
            if window == splash.window {
                if mappedAt == nil {
                    mappedAt = monotonicMilliseconds()
                    log.event("mapped after \(log.elapsed) ms")
                }
                return
            }
            guard reason == nil else { return }
            if let found = matcher.windowMapped(window) { note(.handlerWindow(found)) }
        case PropertyNotify:
            guard reason == nil else { return }
            if let found = matcher.propertyChanged(event.xproperty.window, atom: event.xproperty.atom) { note(.handlerWindow(found)) }
        case DestroyNotify:
            matcher.windowDestroyed(event.xdestroywindow.window)
        default:
            break
        }
    }

    // MARK: - Showing and taking down

    private func show() throws(SplashFailure) {
        if !splash.isPrepared { try splash.prepareBackground(image, screen: screen) }
        splash.map()
        _ = XFlush(display)
        mapRequestedAt = monotonicMilliseconds()
        log.event("map requested at \(splash.width)x\(splash.height)+\(splash.x)+\(splash.y)")
    }

    /// Broadcasts `new:` for the startup id on the handler's behalf.
    private func announce() {
        guard options.announce, let id = options.startupID else { return }
        var fields = [("ID", id), ("NAME", options.name ?? Self.baseName(options.imagePath)), ("SCREEN", String(screen))]
        if let pid = options.pid {
            fields.append(("PID", String(pid)))
            var host = [CChar](repeating: 0, count: 256)
            if gethostname(&host, host.count - 1) == 0 {
                fields.append(("HOSTNAME", host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }))
            }
        }
        if let wmClass = options.wmClass { fields.append(("WMCLASS", wmClass)) }
        StartupNotification.broadcast(StartupNotification.format(type: "new", fields), display: display, root: root,
                                      sender: splash.window, atoms: atoms)
        announced = true
        log.event("announced startup id \(id)")
    }

    /// Ends startup notification when the app did not, destroys the window, closes everything.
    private func cleanUp() {
        if announced, let id = options.startupID, reason?.needsRemoveMessage ?? true {
            StartupNotification.broadcast(StartupNotification.format(type: "remove", [("ID", id)]), display: display, root: root,
                                          sender: splash.window, atoms: atoms)
        }
        splash.destroy()
        if XErrorTrap.count > 0 {
            log.event("ignored \(XErrorTrap.count) X errors (windows gone while checked; last code \(XErrorTrap.lastCode))")
        }
        _ = XCloseDisplay(display)
        handlerWatch?.close()
        signals.close()
    }
}

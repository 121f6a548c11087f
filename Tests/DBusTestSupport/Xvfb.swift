import CX11
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private X server for one test: `Xvfb -displayfd … -screen 0 W×H×24 -nolisten tcp -br -r` on a
/// display number the server picks itself (so parallel tests never collide), started with a clean
/// signal mask (``ChildProcess``) and stopped on ``stop()`` or deinit. The root window is black
/// (`-br`). Keys do not repeat (`-r`): a key a test presses once (`xdotool key`) is held between
/// its press and release, and a machine busy enough to hold it past the server's repeat delay
/// (660 ms) typed it again — a file chooser's field read `…/chosen.pngvvv` after one ctrl+V in a
/// clean clone's CI run. Clients get the display through ``display`` (`DISPLAY=:N`); the user's display is
/// never used.
public final class Xvfb: @unchecked Sendable {
    /// The display name, e.g. `:3`.
    public let display: String
    /// The screen size.
    public let width: Int, height: Int
    /// The server's log (stderr).
    public let logFile: URL
    private let process: ChildProcess

    /// Starts a server and waits until it accepts connections (it writes its display number to
    /// the `-displayfd` pipe only then).
    public init(width: Int = 640, height: Int = 480, timeout: Duration = .seconds(30)) throws {
        self.width = width
        self.height = height
        // Windows of the programs under test come and go while tests look at them: an X error
        // (BadWindow) must not end the test process, which Xlib's default handler does.
        _ = XSetErrorHandler { _, _ in 0 }
        let exe = try Tools.path(of: "Xvfb")
        logFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-xvfb-\(UUID().uuidString.prefix(8)).log")
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ToolError("pipe failed") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        defer { close(fds[0]) }
        let p: ChildProcess
        do {
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "DISPLAY")
            p = try ChildProcess([exe, "-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-br", "-r", "-noreset"],
                                 environment: env, stderr: logFile.path, stdoutFD: fds[1])
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])
        process = p
        var line = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var pfd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 || errno == EINTR else { break }
            guard pfd.revents != 0 else { continue }
            var byte: UInt8 = 0
            guard read(fds[0], &byte, 1) == 1 else { break }
            if byte == 0x0A { break }
            line.append(byte)
        }
        guard let number = Int(String(decoding: line, as: UTF8.self)) else {
            p.terminate()
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw ToolError("Xvfb did not start (apt-get install -y xvfb xauth): \(log.suffix(600))")
        }
        display = ":\(number)"
    }

    /// The environment a client of this server needs (`DISPLAY`).
    public var clientEnvironment: [String: String] { ["DISPLAY": display] }

    /// The server's process id.
    public var pid: Int32 { process.pid }

    /// Stops the server and removes its log.
    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: logFile)
    }

    deinit { stop() }

    /// Runs `body` with a fresh connection to the server, closed afterwards.
    public func withConnection<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        guard let dpy = XOpenDisplay(display) else { throw ToolError("cannot open X display \(display)") }
        defer { XCloseDisplay(dpy) }
        return try body(dpy)
    }

    /// Whether the server repeats a held key (its keyboard's auto-repeat, as `xset q` reports it).
    public func repeatsKeys() throws -> Bool {
        try withConnection { dpy in
            var state = XKeyboardState()
            XGetKeyboardControl(dpy, &state)
            return state.global_auto_repeat != AutoRepeatModeOff
        }
    }

    /// What the root window shows now, as RGB pixels (what a user would see).
    public func screenshot() throws -> Screenshot {
        try screenshot(x: 0, y: 0, width: width, height: height)
    }

    /// The colour of one pixel of the screen now: a 1×1 read, cheap enough to poll.
    public func pixel(_ x: Int, _ y: Int) throws -> [UInt8] {
        try screenshot(x: x, y: y, width: 1, height: 1).pixel(0, 0)
    }

    /// What a rectangle of the root window shows now (``Screenshot/capture(_:_:x:y:width:height:)``).
    public func screenshot(x: Int, y: Int, width w: Int, height h: Int) throws -> Screenshot {
        try withConnection { dpy in try Screenshot.capture(dpy, XDefaultRootWindow(dpy), x: x, y: y, width: w, height: h) }
    }

    /// Polls the screen until `condition` holds for a screenshot; returns the time it took, nil
    /// after `timeout`. Polls are 25–100 ms apart, so watching costs little on a loaded machine.
    public func watch(timeout: Duration = Tools.eventCeiling, _ condition: (Screenshot) -> Bool) async -> Duration? {
        let clock = ContinuousClock(), start = clock.now
        var pause = Duration.milliseconds(25)
        while true {
            if let shot = try? screenshot(), condition(shot) { return clock.now - start }
            if clock.now - start >= timeout { return nil }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// The root window's children (top-level windows without a window manager), bottom to top.
    public func topLevelWindows() throws -> [TopLevelWindow] {
        try withConnection { dpy in
            let root = XDefaultRootWindow(dpy)
            var rootReturn: Window = 0, parent: Window = 0
            var list: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard XQueryTree(dpy, root, &rootReturn, &parent, &list, &count) != 0 else { return [] }
            defer { if let list { XFree(list) } }
            return (0..<Int(count)).compactMap { i -> TopLevelWindow? in
                let w = list![i]
                var attributes = XWindowAttributes()
                guard XGetWindowAttributes(dpy, w, &attributes) != 0 else { return nil }
                var hint = XClassHint()
                var name = "", cls = ""
                if XGetClassHint(dpy, w, &hint) != 0 {
                    if let n = hint.res_name { name = String(cString: n); XFree(n) }
                    if let c = hint.res_class { cls = String(cString: c); XFree(c) }
                }
                return TopLevelWindow(id: UInt(w), resName: name, resClass: cls, isMapped: attributes.map_state != IsUnmapped,
                                      x: Int(attributes.x), y: Int(attributes.y), width: Int(attributes.width), height: Int(attributes.height))
            }
        }
    }
}

/// A top-level window as ``Xvfb/topLevelWindows()`` reports it.
public struct TopLevelWindow: Sendable, Equatable {
    /// The X window id.
    public let id: UInt
    /// WM_CLASS res_name and res_class ("" when unset).
    public let resName: String, resClass: String
    /// Whether it is mapped (viewable or not).
    public let isMapped: Bool
    /// Position relative to the root and size, in pixels.
    public let x: Int, y: Int, width: Int, height: Int
}

/// A root-window screenshot: `width * height` RGB triples, rows top to bottom.
public struct Screenshot: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes: R, G, B, rows top to bottom.
    public let rgb: [UInt8]

    /// A screenshot of `width`×`height` RGB pixels (e.g. read from a PNG file).
    public init(width: Int, height: Int, rgb: [UInt8]) {
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// The colour at (x, y).
    public func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let o = (y * width + x) * 3
        return [rgb[o], rgb[o + 1], rgb[o + 2]]
    }

    /// The smallest rectangle holding every pixel that is not `background` (nil when none).
    public func boundingBox(notMatching background: [UInt8] = [0, 0, 0]) -> (x: Int, y: Int, width: Int, height: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        let (r, g, b) = (background[0], background[1], background[2])
        rgb.withUnsafeBufferPointer { p in
            var o = 0
            for y in 0..<height {
                for x in 0..<width {
                    if p[o] != r || p[o + 1] != g || p[o + 2] != b {
                        if x < minX { minX = x }
                        if x > maxX { maxX = x }
                        if y < minY { minY = y }
                        maxY = y
                    }
                    o += 3
                }
            }
        }
        guard maxX >= 0 else { return nil }
        return (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }
}

extension Screenshot {
    /// What `drawable` (a window, or the root) of connection `dpy` shows in a rectangle, as RGB
    /// pixels. A 24-bit TrueColor image (Xvfb's, Xwayland's) is copied from the server's bytes
    /// directly; anything else goes pixel by pixel. A rootless server (Xwayland) cannot read
    /// its root window, only a window's own contents (`xwd -id`, not `xwd -root`).
    public static func capture(_ dpy: OpaquePointer, _ drawable: Window, x: Int, y: Int, width w: Int, height h: Int) throws -> Screenshot {
        let screen = XDefaultScreen(dpy)
        guard let image = XGetImage(dpy, drawable, Int32(x), Int32(y), UInt32(w), UInt32(h), UInt.max, ZPixmap) else {
            throw ToolError("XGetImage of window \(drawable) failed")
        }
        defer { _ = image.pointee.f.destroy_image(image) }
        let visual = XDefaultVisual(dpy, screen)!.pointee
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        let im = image.pointee
        if im.bits_per_pixel == 32, im.byte_order == LSBFirst, visual.red_mask == 0xFF0000, visual.green_mask == 0xFF00,
           visual.blue_mask == 0xFF, let data = im.data {
            let stride = Int(im.bytes_per_line)
            data.withMemoryRebound(to: UInt8.self, capacity: stride * h) { bytes in
                for row in 0..<h {
                    var o = row * w * 3
                    var i = row * stride
                    for _ in 0..<w {
                        rgb[o] = bytes[i + 2]; rgb[o + 1] = bytes[i + 1]; rgb[o + 2] = bytes[i]
                        o += 3; i += 4
                    }
                }
            }
            return Screenshot(width: w, height: h, rgb: rgb)
        }
        func channel(_ pixel: UInt, _ mask: UInt) -> UInt8 {
            let shift = UInt(mask.trailingZeroBitCount), bits = mask.nonzeroBitCount
            let max = (UInt(1) << UInt(bits)) - 1
            let v = (pixel >> shift) & max
            return bits == 8 ? UInt8(v) : UInt8((v * 255 + max / 2) / max)
        }
        for row in 0..<h {
            for col in 0..<w {
                let pixel = image.pointee.f.get_pixel(image, Int32(col), Int32(row))
                let o = (row * w + col) * 3
                rgb[o] = channel(pixel, visual.red_mask)
                rgb[o + 1] = channel(pixel, visual.green_mask)
                rgb[o + 2] = channel(pixel, visual.blue_mask)
            }
        }
        return Screenshot(width: w, height: h, rgb: rgb)
    }
}

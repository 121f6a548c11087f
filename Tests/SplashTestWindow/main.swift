import CX11
import Glibc

// splash-test-window: a stand-in for a handler app in the launch-image tests. It maps one
// top-level window (optionally after a delay) with chosen _NET_WM_PID / _NET_STARTUP_ID /
// WM_CLASS, prints "mapped <window id>" on stdout once the server has mapped it, then stays
// until killed, until --exit-when's file exists, or exits after --exit-after-ms.
// The *-when options wait for a file the test creates: the test decides when, never a timer.
//
//   splash-test-window [--delay-ms N] [--map-when FILE] [--pid N|none] [--startup-id ID]
//                      [--wm-class NAME] [--properties-after-map MS] [--properties-when FILE]
//                      [--geometry WxH+X+Y] [--color RRGGBB] [--exit-after-ms N] [--exit-when FILE]

/// The test window's options.
struct WindowOptions {
    var delayMs = 0
    var pid: Int? = Int(getpid())
    var startupID: String?
    var wmClass = "splash-test-window"
    var propertiesAfterMapMs: Int?
    var geometry = (w: 100, h: 80, x: 10, y: 10)
    var color: UInt = 0xFFFFFF
    var exitAfterMs: Int?
    var mapWhen: String?
    var propertiesWhen: String?
    var exitWhen: String?

    init(_ arguments: [String]) {
        var args = arguments
        while !args.isEmpty {
            let option = args.removeFirst()
            guard !args.isEmpty else { fail("missing value for \(option)") }
            let value = args.removeFirst()
            switch option {
            case "--delay-ms": delayMs = Int(value) ?? 0
            case "--pid": pid = value == "none" ? nil : Int(value)
            case "--startup-id": startupID = value
            case "--wm-class": wmClass = value
            case "--properties-after-map": propertiesAfterMapMs = Int(value)
            case "--geometry":
                let parts = value.split(whereSeparator: { $0 == "x" || $0 == "+" }).compactMap { Int($0) }
                if parts.count == 4 { geometry = (parts[0], parts[1], parts[2], parts[3]) }
            case "--color": color = UInt(value, radix: 16) ?? color
            case "--exit-after-ms": exitAfterMs = Int(value)
            case "--map-when": mapWhen = value
            case "--properties-when": propertiesWhen = value
            case "--exit-when": exitWhen = value
            default: fail("unknown option \(option)")
            }
        }
    }
}

func say(_ fd: Int32, _ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    say(2, "splash-test-window: \(message)")
    exit(1)
}

func sleepMs(_ ms: Int) { if ms > 0 { usleep(UInt32(ms) * 1000) } }

/// Returns once `path` exists (checked every 20 ms: one stat call).
func waitForFile(_ path: String?) {
    guard let path else { return }
    while access(path, F_OK) != 0 { usleep(20_000) }
}

func setProperties(_ options: WindowOptions, display: OpaquePointer, window: Window) {
    func intern(_ name: String) -> Atom { XInternAtom(display, name, 0) }
    let cls = Array((options.wmClass + "\0" + options.wmClass + "\0").utf8)
    _ = XChangeProperty(display, window, Atom(XA_WM_CLASS), Atom(XA_STRING), 8, PropModeReplace, cls, Int32(cls.count))
    if let pid = options.pid {
        let value = [pid]
        value.withUnsafeBytes { raw in
            _ = XChangeProperty(display, window, intern("_NET_WM_PID"), Atom(XA_CARDINAL), 32, PropModeReplace,
                                raw.bindMemory(to: UInt8.self).baseAddress, 1)
        }
    }
    if let id = options.startupID {
        let bytes = Array(id.utf8)
        _ = XChangeProperty(display, window, intern("_NET_STARTUP_ID"), intern("UTF8_STRING"), 8, PropModeReplace, bytes, Int32(bytes.count))
    }
}

func run() -> Never {
    let options = WindowOptions(Array(CommandLine.arguments.dropFirst()))
    guard let display = XOpenDisplay(nil) else { fail("cannot open display") }
    let root = XDefaultRootWindow(display)
    var attributes = XSetWindowAttributes()
    attributes.background_pixel = options.color
    attributes.event_mask = StructureNotifyMask
    let g = options.geometry
    let window = XCreateWindow(display, root, Int32(g.x), Int32(g.y), UInt32(g.w), UInt32(g.h), 0,
                               0, UInt32(InputOutput), nil, UInt(CWBackPixel | CWEventMask), &attributes)
    let propertiesLater = options.propertiesAfterMapMs != nil || options.propertiesWhen != nil
    if !propertiesLater { setProperties(options, display: display, window: window) }
    _ = XSync(display, 0)
    sleepMs(options.delayMs)
    waitForFile(options.mapWhen)
    _ = XMapWindow(display, window)
    var event = XEvent()
    repeat { XNextEvent(display, &event) } while !(event.type == MapNotify && event.xmap.window == window)
    say(1, "mapped 0x\(String(window, radix: 16))")
    if propertiesLater {
        sleepMs(options.propertiesAfterMapMs ?? 0)
        waitForFile(options.propertiesWhen)
        setProperties(options, display: display, window: window)
        _ = XSync(display, 0)
        say(1, "properties set")
    }
    if let exitAfterMs = options.exitAfterMs {
        sleepMs(exitAfterMs)
        XCloseDisplay(display)
        exit(0)
    }
    guard let exitWhen = options.exitWhen else { while true { XNextEvent(display, &event) } }
    while access(exitWhen, F_OK) != 0 {
        while XPending(display) > 0 { XNextEvent(display, &event) }
        usleep(20_000)
    }
    XCloseDisplay(display)
    exit(0)
}

run()

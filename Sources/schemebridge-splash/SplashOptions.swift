import Glibc

/// The helper's command line. Every option takes `--name value` or `--name=value`.
struct SplashOptions {
    /// The PNG to show (`--image`, required).
    var imagePath = ""
    /// The handler's process id (`--pid`): its exit, or a window whose `_NET_WM_PID` is it or a
    /// descendant of it, takes the image down.
    var pid: pid_t?
    /// The startup-notification id (`--startup-id`): announced with `new:`, and `remove:` or a
    /// window whose `_NET_STARTUP_ID` equals it takes the image down.
    var startupID: String?
    /// The handler's `StartupWMClass` (`--wm-class`): a new window with this WM_CLASS name or
    /// class (case-insensitive) takes the image down.
    var wmClass: String?
    /// Show the image only when the handler is not up after this long (`--show-delay-ms`).
    var showDelayMs: Int64 = 150
    /// Once shown, keep the image at least this long (`--min-show-ms`).
    var minShowMs: Int64 = 300
    /// Take the image down after this long, whatever happens (`--timeout-ms`).
    var timeoutMs: Int64 = 10_000
    /// Scale images larger than the screen down to fit (`--scale-to-fit yes|no`); with `no`
    /// the centre of the image is shown, cropped to the screen.
    var scaleToFit = true
    /// The NAME of the startup-notification `new:` message (`--name`).
    var name: String?
    /// Whether to broadcast `new:` (and `remove:` when taking down); `--no-announce` when a
    /// launcher has announced the id already.
    var announce = true
    /// The X display (`--display`); `DISPLAY` from the environment otherwise.
    var display: String?
    /// One stderr line per event (`--verbose`).
    var verbose = false
    /// `--help` was given.
    var help = false

    /// The `--help` text.
    static let usage = """
        usage: schemebridge-splash --image /abs/path.png [--pid PID] [--startup-id ID] [--wm-class CLASS]
                                   [--show-delay-ms 150] [--min-show-ms 300] [--timeout-ms 10000]
                                   [--scale-to-fit yes] [--name NAME] [--no-announce] [--display DPY] [--verbose]

        Shows a launch image centred on the screen while an app starts, and takes it down on the
        first of: startup-notification `remove:` for ID; a window of the app (its _NET_STARTUP_ID is
        ID, its _NET_WM_PID is PID or a descendant of PID, or - new windows only - its WM_CLASS is
        CLASS); PID exiting; the timeout; SIGTERM/SIGINT/SIGHUP.

          --image PATH         the PNG to show (8-bit RGBA after libpng's conversion; alpha is
                               composed over what is on screen beneath the image when it is mapped)
          --pid PID            the handler process (need not be our parent)
          --startup-id ID      broadcast startup-notification `new: ID=...` on the handler's behalf
                               and watch for `remove:` and windows with _NET_STARTUP_ID = ID
          --wm-class CLASS     the handler's StartupWMClass
          --show-delay-ms N    map only if the handler is not up after N ms (default 150)
          --min-show-ms N      once mapped, keep the image at least N ms (default 300)
          --timeout-ms N       take the image down after N ms from start in any case (default 10000)
          --scale-to-fit yes|no  scale images larger than the screen down, keeping the aspect
                               (default yes); `no` crops them to the screen
          --name NAME          NAME= of the `new:` message (default: the image's file name)
          --no-announce        do not broadcast `new:`/`remove:` (a launcher already did)
          --display DPY        the X display (default: $DISPLAY)
          --verbose            one line per event on stderr
          --help               this text

        Exit status: 0 taken down or never shown (any reason), 1 bad command line, 2 bad image,
        3 cannot open the display, 4 X failure (unsupported visual, lost connection).
        Nothing is ever written to stdout except this help.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(SplashFailure) -> SplashOptions {
        var options = SplashOptions()
        var index = 0
        func bad(_ message: String) -> SplashFailure {
            SplashFailure(.usage, "\(message) (see --help)")
        }
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            var inlineValue: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: eq)...])
                argument = String(argument[..<eq])
            }
            func value() throws(SplashFailure) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw bad("\(argument) needs a value") }
                index += 1
                return arguments[index - 1]
            }
            func milliseconds() throws(SplashFailure) -> Int64 {
                let text = try value()
                guard let n = Int64(text), n >= 0, n <= 86_400_000 else {
                    throw bad("\(argument) takes milliseconds from 0 to 86400000, not '\(text)'")
                }
                return n
            }
            func noValue() throws(SplashFailure) {
                if inlineValue != nil { throw bad("\(argument) takes no value") }
            }
            switch argument {
            case "--image": options.imagePath = try value()
            case "--pid":
                let text = try value()
                guard let n = Int32(text), n > 0 else { throw bad("--pid takes a process id, not '\(text)'") }
                options.pid = n
            case "--startup-id":
                let text = try value()
                guard !text.isEmpty, !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                    throw bad("--startup-id must be non-empty without control characters")
                }
                options.startupID = text
            case "--wm-class":
                let text = try value()
                guard !text.isEmpty else { throw bad("--wm-class must not be empty") }
                options.wmClass = text
            case "--show-delay-ms": options.showDelayMs = try milliseconds()
            case "--min-show-ms": options.minShowMs = try milliseconds()
            case "--timeout-ms": options.timeoutMs = try milliseconds()
            case "--scale-to-fit":
                switch try value().lowercased() {
                case "yes", "true", "1": options.scaleToFit = true
                case "no", "false", "0": options.scaleToFit = false
                case let other: throw bad("--scale-to-fit takes yes or no, not '\(other)'")
                }
            case "--name": options.name = try value()
            case "--no-announce": try noValue(); options.announce = false
            case "--display": options.display = try value()
            case "--verbose", "-v": try noValue(); options.verbose = true
            case "--help", "-h": try noValue(); options.help = true
            default: throw bad("unknown option '\(argument)'")
            }
        }
        if !options.help && options.imagePath.isEmpty { throw bad("--image is required") }
        return options
    }
}

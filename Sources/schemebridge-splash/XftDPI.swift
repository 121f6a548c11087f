import CX11
import Glibc

/// `schemebridge-splash --print-xft-dpi`: prints the X resource `Xft.dpi` of the display (the
/// desktop's font DPI, 96 at scale 1, 192 at scale 2) so that the service, which never talks
/// to X itself, can choose `@2x` launch images. Exit 0 with the number, 1 when unset, 3 without
/// a display.
enum XftDPI {
    static func printAndExit() -> Never {
        guard let display = XOpenDisplay(nil) else {
            writeStderr("schemebridge-splash: cannot open the X display '\(getenv("DISPLAY").map { String(cString: $0) } ?? "")'")
            exit(3)
        }
        defer { XCloseDisplay(display) }
        guard let text = XResourceManagerString(display), let dpi = value(in: String(cString: text)) else { exit(1) }
        print(dpi)
        exit(0)
    }

    /// The value of `Xft.dpi` in a resource database string (`Xft.dpi:\t192`).
    static func value(in resources: String) -> Double? {
        for line in resources.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: " \t")
            guard key == "Xft.dpi" else { continue }
            if let v = Double(line[line.index(after: colon)...].trimmingCharacters(in: " \t")), v.isFinite, v > 0 { return v }
        }
        return nil
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

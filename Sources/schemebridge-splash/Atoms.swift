import CX11
import Glibc

/// The atoms the helper uses, interned in one round trip.
struct Atoms {
    let netStartupInfoBegin: Atom
    let netStartupInfo: Atom
    let netStartupID: Atom
    let netWMPID: Atom
    let netWMName: Atom
    let netWMWindowType: Atom
    let netWMWindowTypeSplash: Atom
    let netWMState: Atom
    let netWMStateAbove: Atom
    let netWMStateSkipTaskbar: Atom
    let netWMStateSkipPager: Atom
    let netSupportingWMCheck: Atom
    let motifWMHints: Atom
    let wmState: Atom
    let utf8String: Atom

    init(display: OpaquePointer) {
        let names = [
            "_NET_STARTUP_INFO_BEGIN", "_NET_STARTUP_INFO", "_NET_STARTUP_ID", "_NET_WM_PID", "_NET_WM_NAME",
            "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_SPLASH", "_NET_WM_STATE", "_NET_WM_STATE_ABOVE",
            "_NET_WM_STATE_SKIP_TASKBAR", "_NET_WM_STATE_SKIP_PAGER", "_NET_SUPPORTING_WM_CHECK",
            "_MOTIF_WM_HINTS", "WM_STATE", "UTF8_STRING",
        ]
        var atoms = [Atom](repeating: 0, count: names.count)
        var cNames = names.map { strdup($0) }
        defer { for p in cNames { free(p) } }
        _ = cNames.withUnsafeMutableBufferPointer { namesBuffer in
            XInternAtoms(display, namesBuffer.baseAddress, Int32(names.count), 0, &atoms)
        }
        netStartupInfoBegin = atoms[0]; netStartupInfo = atoms[1]; netStartupID = atoms[2]
        netWMPID = atoms[3]; netWMName = atoms[4]; netWMWindowType = atoms[5]
        netWMWindowTypeSplash = atoms[6]; netWMState = atoms[7]; netWMStateAbove = atoms[8]
        netWMStateSkipTaskbar = atoms[9]; netWMStateSkipPager = atoms[10]
        netSupportingWMCheck = atoms[11]; motifWMHints = atoms[12]; wmState = atoms[13]
        utf8String = atoms[14]
    }
}

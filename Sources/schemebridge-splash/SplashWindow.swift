import CX11
import Glibc

/// The launch-image window: borderless, centred on the screen, never taking focus.
///
/// With a window manager (a valid `_NET_SUPPORTING_WM_CHECK` on the root) it is a managed window
/// of type `_NET_WM_WINDOW_TYPE_SPLASH`, state above/skip-taskbar/skip-pager, Motif "no
/// decorations", fixed size and user-specified position; without one it is override-redirect.
/// It is created unmapped at start (it also names us as the sender of startup-notification
/// messages); its background pixmap is made when it is shown, from the screen content beneath
/// it at that moment, so that the image's alpha is composed over what the user sees.
final class SplashWindow {
    /// The X window id.
    let window: Window
    /// Position and size on the screen.
    let x: Int, y: Int, width: Int, height: Int
    private let display: OpaquePointer
    private let root: Window
    private var pixmap: Pixmap = 0

    /// Creates the (unmapped) window for an image of `width`×`height` centred on the screen.
    init(display: OpaquePointer, screen: Int32, atoms: Atoms, width: Int, height: Int, managed: Bool, title: String) {
        self.display = display
        root = XRootWindow(display, screen)
        self.width = width
        self.height = height
        x = (Int(XDisplayWidth(display, screen)) - width) / 2
        y = (Int(XDisplayHeight(display, screen)) - height) / 2

        var attributes = XSetWindowAttributes()
        attributes.override_redirect = managed ? 0 : 1
        attributes.border_pixel = 0
        attributes.background_pixmap = 0  // None until shown
        attributes.event_mask = StructureNotifyMask
        window = XCreateWindow(display, root, Int32(x), Int32(y), UInt32(width), UInt32(height), 0,
                               XDefaultDepth(display, screen), UInt32(InputOutput), XDefaultVisual(display, screen),
                               UInt(CWOverrideRedirect | CWBorderPixel | CWBackPixmap | CWEventMask), &attributes)

        let utf8Title = Array(title.utf8)
        WindowProperties.set8(display, window, Atom(XA_WM_NAME), type: Atom(XA_STRING), Array(title.utf8.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }))
        WindowProperties.set8(display, window, atoms.netWMName, type: atoms.utf8String, utf8Title)
        WindowProperties.set8(display, window, Atom(XA_WM_CLASS), type: Atom(XA_STRING), Array("schemebridge-splash\0schemebridge-splash\0".utf8))
        WindowProperties.set32(display, window, atoms.netWMPID, type: Atom(XA_CARDINAL), [Int(getpid())])
        var host = [CChar](repeating: 0, count: 256)
        if gethostname(&host, host.count - 1) == 0 {
            let name = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            WindowProperties.set8(display, window, Atom(XA_WM_CLIENT_MACHINE), type: Atom(XA_STRING), Array(name.utf8))
        }
        WindowProperties.set32(display, window, atoms.netWMWindowType, type: Atom(XA_ATOM), [Int(atoms.netWMWindowTypeSplash)])
        WindowProperties.set32(display, window, atoms.netWMState, type: Atom(XA_ATOM),
                               [Int(atoms.netWMStateAbove), Int(atoms.netWMStateSkipTaskbar), Int(atoms.netWMStateSkipPager)])
        // Motif hints: flags = MWM_HINTS_DECORATIONS, decorations = 0.
        WindowProperties.set32(display, window, atoms.motifWMHints, type: atoms.motifWMHints, [2, 0, 0, 0, 0])

        var size = XSizeHints()
        size.flags = USPosition | PPosition | PSize | PMinSize | PMaxSize
        size.x = Int32(x); size.y = Int32(y)
        size.width = Int32(width); size.height = Int32(height)
        size.min_width = Int32(width); size.min_height = Int32(height)
        size.max_width = Int32(width); size.max_height = Int32(height)
        XSetWMNormalHints(display, window, &size)
        var hints = XWMHints()
        hints.flags = InputHint | StateHint
        hints.input = 0
        hints.initial_state = NormalState
        _ = XSetWMHints(display, window, &hints)
    }

    /// Whether the background pixmap is made.
    var isPrepared: Bool { pixmap != 0 }

    /// Composes `image` over the screen beneath the window into its background pixmap. An opaque
    /// image does not read the screen (it can be prepared at start, ahead of the show delay).
    /// Throws ``ExitStatus/xFailure`` when the visual is not TrueColor.
    func prepareBackground(_ image: RGBAImage, screen: Int32) throws(SplashFailure) {
        let visual = XDefaultVisual(display, screen)!
        guard let layout = PixelLayout(visual: visual) else {
            throw SplashFailure(.xFailure, "the screen's visual is not TrueColor (colour-mapped displays are not supported)")
        }
        let depth = XDefaultDepth(display, screen)
        // What is on screen beneath the window now; black where it cannot be read or is not needed.
        var target = image.isOpaque ? nil : XGetImage(display, root, Int32(x), Int32(y), UInt32(width), UInt32(height), UInt.max, ZPixmap)
        if target == nil {
            let bytesPerLine = width * 4
            let data = calloc(bytesPerLine * height, 1)!.assumingMemoryBound(to: CChar.self)
            target = XCreateImage(display, visual, UInt32(depth), ZPixmap, 0, data, UInt32(width), UInt32(height), 32, 0)
            if target == nil { free(data) }
        }
        guard let target else { throw SplashFailure(.xFailure, "cannot create an image of \(width)x\(height) pixels") }
        defer { _ = target.pointee.f.destroy_image(target) }  // XDestroyImage (a macro); frees the data too
        PixelComposer.compose(image, into: target, layout: layout)

        pixmap = XCreatePixmap(display, root, UInt32(width), UInt32(height), UInt32(depth))
        let gc = XCreateGC(display, pixmap, 0, nil)
        _ = XPutImage(display, pixmap, gc, target, 0, 0, 0, 0, UInt32(width), UInt32(height))
        _ = XFreeGC(display, gc)
        _ = XSetWindowBackgroundPixmap(display, window, pixmap)
    }

    /// Maps the window on top.
    func map() {
        _ = XMapRaised(display, window)
    }

    /// Destroys the window and its pixmap, and waits until the server has done so.
    func destroy() {
        _ = XDestroyWindow(display, window)
        if pixmap != 0 { _ = XFreePixmap(display, pixmap) }
        _ = XSync(display, 0)
    }
}

import CX11

extension Xvfb {
    /// Sets the root window's `RESOURCE_MANAGER` property (what `xrdb -load` does; the server runs
    /// with `-noreset`, so it stays when this connection closes), e.g.
    /// `"Xft.dpi:\t192\n"`.
    public func setResources(_ text: String) throws {
        try withConnection { dpy in
            let root = XDefaultRootWindow(dpy)
            var bytes = Array(text.utf8)
            _ = bytes.withUnsafeMutableBufferPointer {
                XChangeProperty(dpy, root, XA_RESOURCE_MANAGER, XA_STRING, 8, PropModeReplace, $0.baseAddress, Int32($0.count))
            }
            XSync(dpy, 0)
        }
    }
}

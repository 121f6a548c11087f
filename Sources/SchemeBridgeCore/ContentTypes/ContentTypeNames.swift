/// The content types detection gives without the database's help.
public enum ContentTypeName {
    /// A directory.
    public static let directory = "inode/directory"
    /// A symbolic link that is dangling (or not followed).
    public static let symlink = "inode/symlink"
    /// A named pipe.
    public static let fifo = "inode/fifo"
    /// A character device (`/dev/zero`, a terminal).
    public static let characterDevice = "inode/chardevice"
    /// A block device.
    public static let blockDevice = "inode/blockdevice"
    /// A Unix-domain socket.
    public static let socket = "inode/socket"
    /// Text no rule knows; also an empty regular file (as `gio info` says).
    public static let plainText = "text/plain"
    /// Data no rule knows; the ancestor of every type but `inode/*`.
    public static let octetStream = "application/octet-stream"
    /// Empty content handed over as data (GLib's `g_content_type_guess` answer for no bytes).
    public static let zeroSize = "application/x-zerosize"
    /// Desktop entries: only ever detected by name (see ``ContentTypeDatabase/guess(name:data:)``).
    public static let desktopEntry = "application/x-desktop"
}

/// The programs the built-in activities run (argv, never a shell): "Copy" puts the data on the
/// session's clipboard with `wl-copy --type TYPE` under Wayland, else `xclip -selection clipboard
/// -t TYPE` under X11 (the data on its stdin); "Save to…" asks where with zenity's save dialog;
/// a pick's "Files…" without a portal asks with zenity's file chooser.
public enum BuiltinTools {
    /// The clipboard tool's argv for data of `type`; nil without a display or the tool.
    public static func clipboard(type: String, environment: [String: String]) -> [String]? {
        let path = ProgramLookup.searchPath(environment: environment)
        if !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty, let tool = ProgramLookup.find("wl-copy", searchPath: path) {
            return [tool, "--type", type]
        }
        if !(environment["DISPLAY"] ?? "").isEmpty, let tool = ProgramLookup.find("xclip", searchPath: path) {
            return [tool, "-selection", "clipboard", "-t", type]
        }
        return nil
    }

    /// zenity's save dialog's argv, suggesting `name` ("" for none) under `title` (default
    /// "Save to…"); nil without a display or zenity.
    public static func saveDialog(name: String, title: String?, environment: [String: String]) -> [String]? {
        guard ShippedChooser.hasDisplay(environment),
              let zenity = ProgramLookup.find("zenity", searchPath: ProgramLookup.searchPath(environment: environment)) else { return nil }
        return [zenity, "--file-selection", "--save", "--confirm-overwrite", "--title=" + (title ?? "Save to…")] + (name.isEmpty ? [] : ["--filename=" + name])
    }

    /// What the session offers now: the built-ins whose tools are there, and `devices`.
    public static func available(environment: [String: String], devices: [NearbyDevice]) -> ShareTools {
        ShareTools(copy: clipboard(type: ContentTypeName.plainText, environment: environment) != nil,
                   save: saveDialog(name: "", title: nil, environment: environment) != nil, devices: devices)
    }

    /// The path a save dialog answered with (its first line), when it is absolute; else nil
    /// (nothing chosen).
    public static func savePath(fromDialogOutput output: [UInt8]) -> String? {
        let path = String(decoding: output.split(separator: 0x0A).first ?? [], as: UTF8.self)
        return path.hasPrefix("/") ? path : nil
    }

    /// zenity's file chooser for a pick's "Files…" (`--multiple` when asked, one path a line),
    /// titled `title` (default "Choose a document"); nil without zenity.
    public static func openDialog(title: String?, multiple: Bool, environment: [String: String]) -> [String]? {
        guard let zenity = ProgramLookup.find("zenity", searchPath: ProgramLookup.searchPath(environment: environment)) else { return nil }
        return [zenity, "--file-selection", "--title", title ?? "Choose a document"] + (multiple ? ["--multiple", "--separator", "\n"] : [])
    }

    /// The absolute paths a file chooser answered with, one a line; others are ignored.
    public static func paths(fromDialogOutput output: [UInt8]) -> [String] {
        output.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix("/") }
    }
}

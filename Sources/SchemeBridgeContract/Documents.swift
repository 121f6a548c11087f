import DBus

extension ContractCall where Result == OpenResults {
    /// `OpenFile(h fd, a{sv} options) → a{sv}`: `fd` is the proof that the caller may read the file.
    public static func openFile(_ fd: UnixFD, options: OpenOptions) -> Self {
        .single(ContractSignature.openFile, [.unixFD(fd), .vardict(options.dictionary)]) { v in
            v.stringDictionary.map(OpenResults.init)
        }
    }
}

extension ContractCall where Result == String {
    /// `ContentTypeForFile(h fd, s name) → s`.
    public static func contentTypeForFile(_ fd: UnixFD, name: String) -> Self {
        .single(ContractSignature.contentTypeForFile, [.unixFD(fd), .string(name)], \.string)
    }

    /// `DefaultHandlerForType(s type) → s`.
    public static func defaultHandlerForType(_ type: String) -> Self {
        .single(ContractSignature.defaultHandlerForType, [.string(type)], \.string)
    }
}

extension ContractCall where Result == [String] {
    /// `HandlersForType(s type) → as`.
    public static func handlersForType(_ type: String) -> Self {
        .single(ContractSignature.handlersForType, [.string(type)], Self.strings)
    }
}

extension ContractCall where Result == Void {
    /// `SetDefaultHandlerForType(s type, s desktop_id)`.
    public static func setDefaultHandlerForType(_ type: String, _ desktopID: String) -> Self {
        ContractCall(ContractSignature.setDefaultHandlerForType, [.string(type), .string(desktopID)]) { _ in }
    }
}

extension SchemeURL {
    /// The `file://` URL of the absolute path `pathBytes`, its bytes %-encoded (a handler gets
    /// them exactly: ``PercentEncoding/fileURL(_:)``); `Failed`, naming `what` and the path, when
    /// that makes no valid URL (longer than ``maximumByteCount``). The one conversion every
    /// delivered file goes through (a document, a share's file, a device's folder).
    public static func file(_ pathBytes: [UInt8], _ what: String) throws(ServiceFailure) -> SchemeURL {
        do { return try SchemeURL(PercentEncoding.fileURL(pathBytes)) } catch {
            throw ServiceFailure(.failed, "\(what) \(String(decoding: pathBytes, as: UTF8.self)) makes no valid URL")
        }
    }
}

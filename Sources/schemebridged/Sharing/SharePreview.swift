import SchemeBridgeCore

/// What the sheet shows of a shared item: the core's ``ShareItemPreview``.
extension SharedItem {
    var preview: ShareItemPreview {
        switch payload {
        case .file(let fd): .file(descriptor: fd.rawValue, name: name, type: summary.type)
        case .url(let url): .url(url, type: summary.type)
        case .data(.bytes(let bytes), _): .data(bytes: bytes, descriptor: nil, name: name, type: summary.type)
        case .data(.descriptor(let fd), _): .data(bytes: nil, descriptor: fd, name: name, type: summary.type)
        }
    }
}

import LinuxSystem
@testable import SchemeBridgeCore

// Forwards for the tests, which open descriptors as numbers: each lends the number as a
// ``FileDescriptor`` (Core's only descriptor type) to the method that takes one, and never closes it.

extension SharedFileFacts {
    static func gather(fd: Int32, name: String, callerSandboxed: Bool?, excluding directories: [String]) -> SharedFileFacts {
        FileDescriptor.lending(fd) { gather(fd: $0, name: name, callerSandboxed: callerSandboxed, excluding: directories) }
    }
}

extension Documents {
    /// ``inspect(_:contentType:)`` for a descriptor number the caller keeps owning.
    func inspect(_ fd: Int32, contentType: String?) throws(OpenFailure) -> (name: String, type: ContentType) {
        try FileDescriptor.lending(fd) { descriptor throws(OpenFailure) in try inspect(descriptor, contentType: contentType) }
    }

    /// ``contentType(of:name:)`` for a descriptor number the caller keeps owning.
    func contentType(of fd: Int32, name: String) throws(OpenFailure) -> String {
        try FileDescriptor.lending(fd) { descriptor throws(OpenFailure) in try contentType(of: descriptor, name: name) }
    }
}

extension Inbox {
    /// ``place(_:name:desktopID:caller:limits:)`` for a descriptor number the caller keeps owning.
    func place(_ fd: Int32, name: String, desktopID: DesktopID, caller: InboxSender, limits: InboxLimits) throws(OpenFailure) -> String {
        try FileDescriptor.lending(fd) { descriptor throws(OpenFailure) in
            try place(descriptor, name: name, desktopID: desktopID, caller: caller, limits: limits)
        }
    }

    /// ``place(_:nameBytes:desktopID:caller:limits:)`` for a descriptor number the caller keeps owning.
    func place(_ fd: Int32, nameBytes: [UInt8], desktopID: DesktopID, caller: InboxSender, limits: InboxLimits) throws(OpenFailure) -> [UInt8] {
        try FileDescriptor.lending(fd) { descriptor throws(OpenFailure) in
            try place(descriptor, nameBytes: nameBytes, desktopID: desktopID, caller: caller, limits: limits)
        }
    }
}

extension ContentTypeDatabase {
    /// ``contentType(forFileDescriptor:name:)`` for a descriptor number the caller keeps owning.
    func contentType(forFileDescriptor fd: Int32, name: String?) throws(ContentTypeError) -> String {
        try FileDescriptor.lending(fd) { descriptor throws(ContentTypeError) in try contentType(forFileDescriptor: descriptor, name: name) }
    }

    /// ``contentTypeAsGio(forFileDescriptor:name:)`` for a descriptor number the caller keeps owning.
    func contentTypeAsGio(forFileDescriptor fd: Int32, name: String?) throws(ContentTypeError) -> String {
        try FileDescriptor.lending(fd) { descriptor throws(ContentTypeError) in try contentTypeAsGio(forFileDescriptor: descriptor, name: name) }
    }
}

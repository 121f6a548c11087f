/// SchemeBridgeCore: which installed apps handle which URL schemes, and how to start them.
/// This module has no D-Bus in it.
public enum SchemeBridgeCore {
    /// The version of the D-Bus contract this core serves.
    public static let contractVersion: UInt32 = 1
}

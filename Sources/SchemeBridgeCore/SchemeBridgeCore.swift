/// SchemeBridgeCore: which installed apps handle which URL schemes, how to start them, and the
/// rules that decide who may open what (``Broker``). This module has no D-Bus in it.
public enum SchemeBridgeCore {}

import SchemeBridgeCore

/// libFuzzer entry: arbitrary bytes as a desktop file / mimeapps.list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzChecks.keyFile(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// SwiftPM links an executable's entry point as `FuzzKeyFile_main`; hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("FuzzKeyFile_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, { data, size in fuzzKeyFile(data, size) })
}

import DBus

// The Swift side of the layer benchmark: the same trivial Echo(s) -> s as the C reference
// service, once as an inline handler (no thread hop) and once as an async one.
// Usage: schemebridge-bench-service ADDRESS
let address = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ""
let connection = try await Connection.connect(address: address)
try connection.export([Interface("io.github.schemebridge.Bench", methods: [
    Method("Echo", inputs: [Argument("text", "s")], outputs: [Argument("text", "s")],
           handler: .inline { call in [call.arguments[0]] }),
    Method("EchoAsync", inputs: [Argument("text", "s")], outputs: [Argument("text", "s")],
           handler: .async { call in [call.arguments[0]] }),
])], at: "/bench")
_ = try await connection.requestName("io.github.schemebridge.BenchSwift")
await connection.waitUntilDisconnected()

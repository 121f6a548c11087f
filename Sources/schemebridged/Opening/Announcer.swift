import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `URLHandled` and `URLFailed` under `[Privacy] BroadcastURLs` (the core's ``BroadcastPrivacy``): the broadcast carries
/// the URL as the setting allows (by default without userinfo, query and fragment), and the caller gets the signal with
/// the full URL sent to it alone whenever the broadcast does not; both just after the method's reply, with it.
struct Announcer: Sendable {
    let connection: Connection
    let policy: PolicyStore

    /// Reports that `caller`'s open of `signal.url` succeeded.
    func announce(_ signal: URLHandled, to caller: String) {
        let plan = BroadcastPrivacy.plan(signal.url, mode: policy.current.broadcastURLs)
        if let shown = plan.broadcast {
            var broadcast = signal
            broadcast.url = shown
            try? connection.emitWithReply(broadcast)
        }
        if plan.toCaller, let destination = try? BusName(caller) { try? connection.emitWithReply(signal, to: destination) }
    }

    /// Reports that `caller`'s open of `signal.url` failed (a message quoting the URL is redacted alike).
    func announce(_ signal: URLFailed, to caller: String) {
        let plan = BroadcastPrivacy.plan(signal.url, mode: policy.current.broadcastURLs)
        if let shown = plan.broadcast {
            var broadcast = signal
            broadcast.url = shown
            if shown != signal.url { broadcast.message = BroadcastPrivacy.redacted(signal.message, quoting: signal.url) }
            try? connection.emitWithReply(broadcast)
        }
        if plan.toCaller, let destination = try? BusName(caller) { try? connection.emitWithReply(signal, to: destination) }
    }
}

import CCurl

/// Fetches a host's `https://HOST/.well-known/assetlinks.json` with libcurl: HTTPS only (TLS
/// verified against the system's trust anchors and `[AppLinks] CAFile`), no redirect followed,
/// no more than ``AssetLinks/maximumBytes``, within `[AppLinks] Timeout` (connecting within half
/// of it), no cookies, no proxy from the environment; `[AppLinks] Resolve` says where to connect
/// for a host. Blocking: run it on a thread of its own (``AppLinkVerifier``), never on a path an
/// open waits for.
public struct AppLinkFetcher: Sendable {
    public init() {}

    /// libcurl, loaded and initialised at the first fetch (nil: it cannot be). Not linked: see
    /// `Sources/CCurl/shim.h`.
    private static let curl = Curl()

    /// libcurl's functions (`sb_curl`), loaded once for the life of the process.
    private final class Curl: @unchecked Sendable {
        let api: UnsafePointer<sb_curl>

        init?() {
            let c = UnsafeMutablePointer<sb_curl>.allocate(capacity: 1)
            c.initialize(to: sb_curl())
            guard sb_curl_load(c) != 0 else {
                c.deallocate()
                return nil
            }
            api = UnsafePointer(c)
        }
    }

    /// Fetches and reads the file of `host` (normalised) at `now` (seconds since the epoch).
    public func fetch(host: String, config: AppLinkConfig, now: Int64) -> AppLinkRecord {
        let source = "https://" + host + AssetLinks.path
        var record = AppLinkRecord(host: host, checked: now, expires: now, apps: [], failure: nil, source: source, address: "", status: 0)
        guard let c = Self.curl?.api, let h = sb_curl_easy_init(c) else {
            record.failure = "libcurl could not be started (libcurl.so.4 is needed)"
            return record
        }
        defer { sb_curl_easy_cleanup(c, h) }
        let body = Body()
        let bodyRef = Unmanaged.passRetained(body)
        defer { bodyRef.release() }
        var lists: [UnsafeMutablePointer<curl_slist>?] = []
        defer { lists.forEach { sb_curl_slist_free_all(c, $0) } }

        _ = sb_curl_setopt_string(c, h, CURLOPT_URL, source)
        _ = sb_curl_setopt_string(c, h, CURLOPT_PROTOCOLS_STR, "https")
        _ = sb_curl_setopt_string(c, h, CURLOPT_REDIR_PROTOCOLS_STR, "https")
        _ = sb_curl_setopt_long(c, h, CURLOPT_FOLLOWLOCATION, 0)
        _ = sb_curl_setopt_long(c, h, CURLOPT_NOSIGNAL, 1)
        _ = sb_curl_setopt_long(c, h, CURLOPT_SSL_VERIFYPEER, 1)
        _ = sb_curl_setopt_long(c, h, CURLOPT_SSL_VERIFYHOST, 2)
        _ = sb_curl_setopt_long(c, h, CURLOPT_TIMEOUT, config.timeout)
        _ = sb_curl_setopt_long(c, h, CURLOPT_CONNECTTIMEOUT, max(config.timeout / 2, 1))
        _ = sb_curl_setopt_offset(c, h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(AssetLinks.maximumBytes))
        _ = sb_curl_setopt_string(c, h, CURLOPT_PROXY, "")
        _ = sb_curl_setopt_string(c, h, CURLOPT_USERAGENT, "SchemeBridge app-link verification")
        _ = sb_curl_setopt_string(c, h, CURLOPT_ACCEPT_ENCODING, "")
        if let ca = config.caFile {
            // The extra anchors as the one CA file, the system's through its hashed directory
            // (OpenSSL reads both).
            _ = sb_curl_setopt_string(c, h, CURLOPT_CAINFO, ca)
            _ = sb_curl_setopt_string(c, h, CURLOPT_CAPATH, "/etc/ssl/certs")
        }
        if let target = config.resolve[host] {
            let list = sb_curl_slist_append(c, nil, "\(host):443:\(target)")
            lists.append(list)
            _ = sb_curl_setopt_list(c, h, CURLOPT_CONNECT_TO, list)
        }
        _ = sb_curl_setopt_write(c, h, { data, size, count, user in
            let body = Unmanaged<Body>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            guard body.bytes.count + n <= AssetLinks.maximumBytes else { body.tooLarge = true; return 0 }
            if let data { body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: n)) }
            return n
        }, bodyRef.toOpaque())

        let rc = sb_curl_easy_perform(c, h)
        record.status = sb_curl_info_long(c, h, CURLINFO_RESPONSE_CODE)
        if let ip = sb_curl_info_string(c, h, CURLINFO_PRIMARY_IP), ip.pointee != 0 {
            let port = sb_curl_info_long(c, h, CURLINFO_PRIMARY_PORT)
            let address = String(cString: ip)
            record.address = (address.contains(":") ? "[\(address)]" : address) + ":\(port)"
        }
        if rc != CURLE_OK {
            if body.tooLarge || rc == CURLE_FILESIZE_EXCEEDED {
                record.failure = "the file is larger than \(AssetLinks.maximumBytes / 1024) KiB"
            } else if rc == CURLE_OPERATION_TIMEDOUT {
                record.failure = "no answer within \(config.timeout) s"
                record.transient = true
            } else {
                record.failure = "not fetched: " + String(cString: sb_curl_easy_strerror(c, rc))
                record.transient = [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
                                    CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE].contains(rc)
            }
        } else if (300..<400).contains(record.status) {
            let location = sb_curl_header(c, h, "Location").map { String(cString: $0) } ?? ""
            record.failure = "HTTP \(record.status): a redirect\(location.isEmpty ? "" : " to \(location.prefix(200))") (never followed)"
        } else if record.status != 200 {
            record.failure = "HTTP \(record.status)"
            record.transient = (500..<600).contains(record.status)
        } else {
            do {
                record.apps = try AssetLinks.endorsedApps(body.bytes)
            } catch {
                record.failure = "malformed: \(error.message)"
            }
        }
        if record.failure == nil {
            let maxAge = AppLinkRecord.maxAge(cacheControl: sb_curl_header(c, h, "Cache-Control").map { String(cString: $0) })
            record.expires = now + AppLinkRecord.lifetime(maxAge: maxAge)
            record.endorsedUntil = record.expires
        } else {
            record.failures = 1
            record.expires = now + AppLinkRecord.retryDelay(failures: 1)
        }
        return record
    }

    private final class Body: @unchecked Sendable {
        var bytes: [UInt8] = []
        var tooLarge = false
    }
}


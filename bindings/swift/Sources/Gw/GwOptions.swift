import Foundation

/// How gw checks the gateway's TLS certificate.
public enum GwTLSVerifier: String, Sendable, Hashable {
    /// gw's built-in roots (webpki), plus ``GwOptions/caFile`` / ``GwOptions/caPEM`` and
    /// `SSL_CERT_FILE` / `SSL_CERT_DIR`. The default.
    case webpki
    /// The operating system's trust store and policy (Keychain and MDM-installed roots on Apple
    /// platforms). The right choice for iOS and macOS apps; needs libgw built with the cargo
    /// feature `platform-verifier` (scripts/build-xcframework.sh does).
    case platform
}

/// Options of a ``GwClient``: every client option of gw's C ABI
/// (`gw_client_new_with_options`), plus the binding's own ``maxThreads``.
///
/// `nil` means gw's default (shown on each field). With ``baseURL`` and ``apiKey`` nil, gw
/// reads `GW_BASE_URL` and `GW_API_KEY` from the environment.
public struct GwOptions: Sendable, Hashable {
    /// The gateway, e.g. `https://gw.example` (a trailing `/` or `/v1` is fine). Plain `http://`
    /// is refused unless the host is loopback or ``allowInsecureHTTP`` is set.
    public var baseURL: String?
    /// The API key (sent as a Bearer token, or `?key=` for `generateContent`).
    public var apiKey: String?
    /// Time to establish a connection (10 s). `.zero` means none.
    public var connectTimeout: Duration?
    /// Longest silence while reading an answer or stream (60 s).
    public var readTimeout: Duration?
    /// Whole call, retries included, counted from the call (a stream: from its first read, see
    /// ``GwStream``): the wait for a thread (see ``maxThreads``) is part of it (600 s).
    public var totalTimeout: Duration?
    /// Time until the answer's first byte (600 s).
    public var firstByteTimeout: Duration?
    /// Retries of 408, 409, 429, 5xx and connection failures (2).
    public var maxRetries: Int?
    /// First backoff delay (500 ms), doubled per retry with jitter.
    public var retryBaseDelay: Duration?
    /// Longest backoff delay (8 s).
    public var retryMaxDelay: Duration?
    /// Longest `Retry-After` honoured (60 s).
    public var retryAfterCap: Duration?
    /// An `http://` or `https://` proxy (`socks5://` is refused). Default: the environment's.
    public var proxy: String?
    /// Headers sent with every request (not the ones gw sets: Authorization, Host, ...).
    public var headers: [String: String]
    /// Check the API document's limits before sending (true).
    public var validate: Bool?
    /// Allow plain `http://` to a non-loopback host (false).
    public var allowInsecureHTTP: Bool?
    /// Largest answer body (64 MiB).
    public var maxResponseBytes: Int?
    /// Longest stream line (4 MiB).
    public var maxLineBytes: Int?
    /// Largest stream event (8 MiB).
    public var maxEventBytes: Int?
    /// User-Agent header (gw's own).
    public var userAgent: String?
    /// Idle pooled connections kept (16).
    public var maxIdleConnections: Int?
    /// Send an `Idempotency-Key` on POSTs, the same across retries (true).
    public var idempotencyKeys: Bool?
    /// A PEM file of CA certificates added to the roots.
    public var caFile: String?
    /// PEM text of CA certificates added to the roots.
    public var caPEM: String?
    /// How certificates are checked (``GwTLSVerifier/webpki``).
    public var tlsVerifier: GwTLSVerifier?
    /// Options gw knows and this type does not name yet, passed through as is.
    public var extra: [String: JSONValue]
    /// The most threads this client blocks in gw calls at once (64). Every in-flight call or
    /// stream read holds one of them; calls beyond the cap wait for a free thread (a waiting
    /// call is still cancellable at once, and fails with `.timeout` at its total deadline).
    /// Threads are the binding's own, never Swift's cooperative pool; they exit after 10 s
    /// idle, and as soon as they have no work once the client is released. With
    /// ``GwTransport/urlSession(_:)`` no call takes one.
    public var maxThreads: Int
    /// How calls reach the network: gw's own stack (``GwTransport/builtIn``, the default) or
    /// the platform's `URLSession` (``GwTransport/urlSession(_:)``: on Apple platforms the
    /// cellular radio, VPN on demand, system proxies, ATS and Low Data Mode apply). See
    /// ``GwTransport``.
    public var transport: GwTransport

    public init(
        baseURL: String? = nil, apiKey: String? = nil, connectTimeout: Duration? = nil,
        readTimeout: Duration? = nil, totalTimeout: Duration? = nil, firstByteTimeout: Duration? = nil,
        maxRetries: Int? = nil, retryBaseDelay: Duration? = nil, retryMaxDelay: Duration? = nil,
        retryAfterCap: Duration? = nil, proxy: String? = nil, headers: [String: String] = [:],
        validate: Bool? = nil, allowInsecureHTTP: Bool? = nil, maxResponseBytes: Int? = nil,
        maxLineBytes: Int? = nil, maxEventBytes: Int? = nil, userAgent: String? = nil,
        maxIdleConnections: Int? = nil, idempotencyKeys: Bool? = nil, caFile: String? = nil,
        caPEM: String? = nil, tlsVerifier: GwTLSVerifier? = nil, extra: [String: JSONValue] = [:],
        maxThreads: Int = 64, transport: GwTransport = .builtIn
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.totalTimeout = totalTimeout
        self.firstByteTimeout = firstByteTimeout
        self.maxRetries = maxRetries
        self.retryBaseDelay = retryBaseDelay
        self.retryMaxDelay = retryMaxDelay
        self.retryAfterCap = retryAfterCap
        self.proxy = proxy
        self.headers = headers
        self.validate = validate
        self.allowInsecureHTTP = allowInsecureHTTP
        self.maxResponseBytes = maxResponseBytes
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
        self.userAgent = userAgent
        self.maxIdleConnections = maxIdleConnections
        self.idempotencyKeys = idempotencyKeys
        self.caFile = caFile
        self.caPEM = caPEM
        self.tlsVerifier = tlsVerifier
        self.extra = extra
        self.maxThreads = maxThreads
        self.transport = transport
    }

    /// Options from the environment: `GW_BASE_URL` and `GW_API_KEY` (read by gw), the rest
    /// default.
    public static var environment: GwOptions { GwOptions() }

    /// gw's options JSON (`gw_client_new_with_options`).
    public func json() throws -> JSONValue {
        var o: [String: JSONValue] = [:]
        for (k, v) in extra { o[k] = v }
        o.set("base_url", baseURL)
        o.set("api_key", apiKey)
        try o.setMillis("connect_timeout_ms", connectTimeout)
        try o.setMillis("read_timeout_ms", readTimeout)
        try o.setMillis("total_timeout_ms", totalTimeout)
        try o.setMillis("first_byte_timeout_ms", firstByteTimeout)
        try o.setCount("max_retries", maxRetries)
        try o.setMillis("retry_base_delay_ms", retryBaseDelay)
        try o.setMillis("retry_max_delay_ms", retryMaxDelay)
        try o.setMillis("retry_after_cap_ms", retryAfterCap)
        o.set("proxy", proxy)
        if !headers.isEmpty { o["headers"] = .object(headers.mapValues { .string($0) }) }
        if let v = validate { o["validate"] = .bool(v) }
        if let v = allowInsecureHTTP { o["allow_insecure_http"] = .bool(v) }
        try o.setCount("max_response_bytes", maxResponseBytes)
        try o.setCount("max_line_bytes", maxLineBytes)
        try o.setCount("max_event_bytes", maxEventBytes)
        o.set("user_agent", userAgent)
        try o.setCount("max_idle_connections", maxIdleConnections)
        if let v = idempotencyKeys { o["idempotency_keys"] = .bool(v) }
        o.set("ca_file", caFile)
        o.set("ca_pem", caPEM)
        o.set("tls_verifier", tlsVerifier?.rawValue)
        if maxThreads < 1 { throw GwError.invalidArgument("maxThreads", "must be at least 1 (got \(maxThreads))") }
        return .object(o)
    }
}

extension GwOptions: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    static let redacted = SecretRedaction.placeholder

    /// A copy with every credential (the API key, credential headers and `extra` members, a
    /// proxy password) replaced, for output.
    private var keyRedacted: GwOptions {
        var copy = self
        if copy.apiKey != nil { copy.apiKey = Self.redacted }
        copy.headers = SecretRedaction.headers(headers)
        copy.extra = SecretRedaction.extra(extra)
        copy.proxy = SecretRedaction.url(proxy)
        return copy
    }

    /// The options with the API key hidden.
    public var description: String {
        "GwOptions(" + ((try? keyRedacted.json().jsonString) ?? "?") + ", maxThreads: \(maxThreads), transport: \(transport))"
    }

    /// The same as ``description``: the API key hidden.
    public var debugDescription: String { description }

    /// Every field for `dump`, debuggers and `Mirror`, the API key redacted (the default
    /// reflection would print it).
    public var customMirror: Mirror {
        let o = keyRedacted
        return Mirror(
            self,
            children: [
                "baseURL": o.baseURL as Any, "apiKey": o.apiKey as Any, "connectTimeout": o.connectTimeout as Any,
                "readTimeout": o.readTimeout as Any, "totalTimeout": o.totalTimeout as Any,
                "firstByteTimeout": o.firstByteTimeout as Any, "maxRetries": o.maxRetries as Any,
                "retryBaseDelay": o.retryBaseDelay as Any, "retryMaxDelay": o.retryMaxDelay as Any,
                "retryAfterCap": o.retryAfterCap as Any, "proxy": o.proxy as Any, "headers": o.headers,
                "validate": o.validate as Any, "allowInsecureHTTP": o.allowInsecureHTTP as Any,
                "maxResponseBytes": o.maxResponseBytes as Any, "maxLineBytes": o.maxLineBytes as Any,
                "maxEventBytes": o.maxEventBytes as Any, "userAgent": o.userAgent as Any,
                "maxIdleConnections": o.maxIdleConnections as Any, "idempotencyKeys": o.idempotencyKeys as Any,
                "caFile": o.caFile as Any, "caPEM": o.caPEM as Any, "tlsVerifier": o.tlsVerifier as Any,
                "extra": o.extra, "maxThreads": o.maxThreads, "transport": o.transport,
            ], displayStyle: .struct)
    }
}

/// Options for one call, applied on a handle derived for it (`gw_client_create_derived`):
/// they override the client's for this call only.
public struct GwCallOptions: Sendable {
    /// The whole call (the client's ``GwOptions/totalTimeout`` otherwise), counted from the
    /// call (a stream: from its first read, see ``GwStream``), the wait for a thread included.
    /// `.zero` means none.
    public var totalTimeout: Duration?
    public var firstByteTimeout: Duration?
    public var readTimeout: Duration?
    public var connectTimeout: Duration?
    public var maxRetries: Int?
    /// Merged over the client's headers.
    public var headers: [String: String]
    /// Sent as `Idempotency-Key` on POSTs (otherwise gw makes one per call when
    /// ``GwOptions/idempotencyKeys`` is on).
    public var idempotencyKey: String?
    public var validate: Bool?
    /// Per-call options gw knows and this type does not name yet.
    public var extra: [String: JSONValue]
    /// Called with the exchange's metadata when the call succeeds (a failure carries it in
    /// ``GwError/response``). For a stream, once the stream ended.
    public var onResponse: (@Sendable (GwResponseMeta) -> Void)?

    public init(
        totalTimeout: Duration? = nil, firstByteTimeout: Duration? = nil, readTimeout: Duration? = nil,
        connectTimeout: Duration? = nil, maxRetries: Int? = nil, headers: [String: String] = [:],
        idempotencyKey: String? = nil, validate: Bool? = nil, extra: [String: JSONValue] = [:],
        onResponse: (@Sendable (GwResponseMeta) -> Void)? = nil
    ) {
        self.totalTimeout = totalTimeout
        self.firstByteTimeout = firstByteTimeout
        self.readTimeout = readTimeout
        self.connectTimeout = connectTimeout
        self.maxRetries = maxRetries
        self.headers = headers
        self.idempotencyKey = idempotencyKey
        self.validate = validate
        self.extra = extra
        self.onResponse = onResponse
    }

    /// No per-call options.
    public static let none = GwCallOptions()

    /// gw's per-call options JSON, or nil when there is nothing to override.
    func json() throws -> String? {
        var o: [String: JSONValue] = [:]
        for (k, v) in extra { o[k] = v }
        try o.setMillis("total_timeout_ms", totalTimeout)
        try o.setMillis("first_byte_timeout_ms", firstByteTimeout)
        try o.setMillis("read_timeout_ms", readTimeout)
        try o.setMillis("connect_timeout_ms", connectTimeout)
        try o.setCount("max_retries", maxRetries)
        if !headers.isEmpty { o["headers"] = .object(headers.mapValues { .string($0) }) }
        o.set("idempotency_key", idempotencyKey)
        if let v = validate { o["validate"] = .bool(v) }
        return o.isEmpty ? nil : JSONValue.object(o).jsonString
    }
}

extension Duration {
    /// Whole nanoseconds (attoseconds dropped), for DispatchTime.
    var wholeNanoseconds: Int64 {
        let (s, atto) = components
        let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : ns &+ atto / 1_000_000_000
    }

    /// Whole milliseconds, rounded up so a positive duration never becomes 0 ("none").
    var wholeMilliseconds: Int64 {
        let (s, atto) = components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return atto % 1_000_000_000_000_000 > 0 ? ms + 1 : ms
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    mutating func set(_ key: String, _ value: String?) {
        if let v = value { self[key] = .string(v) }
    }
    mutating func setMillis(_ key: String, _ value: Duration?) throws {
        guard let v = value else { return }
        if v < .zero { throw GwError.invalidArgument(key, "must not be negative (got \(v))") }
        self[key] = .int(v.wholeMilliseconds)
    }
    mutating func setCount(_ key: String, _ value: Int?) throws {
        guard let v = value else { return }
        if v < 0 { throw GwError.invalidArgument(key, "must not be negative (got \(v))") }
        self[key] = .int(Int64(v))
    }
}

extension GwCallOptions: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A copy with credential headers and `extra` members replaced, for output.
    private var redacted: GwCallOptions {
        var copy = self
        copy.headers = SecretRedaction.headers(headers)
        copy.extra = SecretRedaction.extra(extra)
        return copy
    }

    /// The per-call options gw is given, credentials hidden.
    public var description: String { "GwCallOptions(" + ((try? redacted.json()) ?? "{}") + ")" }

    /// The same as ``description``: credentials hidden.
    public var debugDescription: String { description }

    /// Every field for `dump`, debuggers and `Mirror`, credentials hidden.
    public var customMirror: Mirror {
        let o = redacted
        return Mirror(
            self,
            children: [
                "totalTimeout": o.totalTimeout as Any, "firstByteTimeout": o.firstByteTimeout as Any,
                "readTimeout": o.readTimeout as Any, "connectTimeout": o.connectTimeout as Any,
                "maxRetries": o.maxRetries as Any, "headers": o.headers, "idempotencyKey": o.idempotencyKey as Any,
                "validate": o.validate as Any, "extra": o.extra, "onResponse": o.onResponse as Any,
            ], displayStyle: .struct)
    }
}

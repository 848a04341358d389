import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a ``GwClient`` reaches the network (``GwOptions/transport``).
///
/// Either way gw decides everything about a call (validation, auth, retries and backoff,
/// redirects, deadlines, SSE parsing, the answer's checks): only the bytes' way differs.
///
/// - ``builtIn`` (the default): gw's own HTTP stack (BSD sockets, rustls), one of the client's
///   threads per call in flight (``GwOptions/maxThreads``).
/// - ``urlSession(_:)``: the platform's `URLSession` with a configuration of yours. On Apple
///   platforms that is what brings up the cellular radio and VPN on demand, and honours the
///   system's and MDM's proxy settings, App Transport Security and Low Data Mode
///   (`allowsConstrainedNetworkAccess`), which BSD sockets do not (Apple's TN3151). No thread
///   waits on the network: gw's exchange is driven from the session's delegate.
public struct GwTransport: Sendable, Hashable, CustomStringConvertible {
    enum Kind: @unchecked Sendable, Hashable {
        case builtIn
        /// A copy of the caller's configuration, taken when the transport was made.
        case urlSession(URLSessionConfiguration)
    }

    let kind: Kind

    /// gw's own HTTP stack (the default).
    public static let builtIn = GwTransport(kind: .builtIn)

    /// `URLSession` with `configuration` (copied now: later changes to it do not reach the
    /// client). Each client makes one session from it (one connection pool).
    ///
    /// What gw decides is set aside in the copy, so the call behaves as with the built-in
    /// transport: redirects are never followed by the session (gw follows them, and never
    /// takes credentials to another origin), nothing is cached or sent with cookies, and gw's
    /// timeouts apply (the configuration's `timeoutIntervalForRequest` and
    /// `timeoutIntervalForResource` are raised out of their way). Everything about the
    /// network path is kept: `allowsCellularAccess`, `allowsExpensiveNetworkAccess`,
    /// `allowsConstrainedNetworkAccess`, `waitsForConnectivity`, the proxy dictionary, TLS
    /// versions, `httpAdditionalHeaders` (gw's own headers win).
    ///
    /// `connectTimeout` counts until the request's body starts to go (URLSession does not tell
    /// when a connection is up); a GET's connect is bounded by `firstByteTimeout`.
    ///
    /// Certificates are checked by the system (the options `caFile`, `caPEM`, `proxy` and
    /// `tlsVerifier: .webpki` are refused with this transport: they configure gw's own stack).
    /// ``GwClient/videoWait(_:taskId:interval:timeout:options:progress:)`` and `videoUpdates`
    /// send every poll through the session too (gw's wait exchange, its pauses as timers).
    public static func urlSession(_ configuration: URLSessionConfiguration = .default) -> GwTransport {
        GwTransport(kind: .urlSession(configuration.copy() as! URLSessionConfiguration))
    }

    /// The configuration of a URLSession transport; nil for the built-in one.
    var sessionConfiguration: URLSessionConfiguration? {
        if case .urlSession(let c) = kind { return c }
        return nil
    }

    public var description: String {
        switch kind {
        case .builtIn: return "builtIn"
        case .urlSession: return "urlSession"
        }
    }
}

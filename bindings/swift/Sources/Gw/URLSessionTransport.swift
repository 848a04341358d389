import CGw
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client's URLSession (``GwTransport/urlSession(_:)``): one session, one connection pool,
/// whose delegate hands each task's head, body bytes and end to the exchange that sent it
/// (``ExchangeRun``).
///
/// The client and every call in flight hold it; the session is invalidated once the last of
/// them is gone (a session keeps its delegate until then, so calls that outlive their client
/// still finish, retries included).
final class URLSessionTransport: @unchecked Sendable {
    let session: URLSession
    private let delegate: SessionDelegate

    init(_ configuration: URLSessionConfiguration) {
        let c = configuration.copy() as! URLSessionConfiguration
        // gw decides what these would: answers are never served from a cache, no cookie goes
        // with a call, and gw's own timers (first byte, read idle, total) run every call.
        c.urlCache = nil
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.httpCookieStorage = nil
        c.httpShouldSetCookies = false
        c.timeoutIntervalForRequest = Self.outOfTheWay
        c.timeoutIntervalForResource = Self.outOfTheWay
        delegate = SessionDelegate()
        // One serial queue per client: a task's callbacks come in order, and each is a few
        // microseconds of gw's work (no I/O, no wait).
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "gw.urlsession"
        session = URLSession(configuration: c, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// A week: URLSession's own timeouts never come before gw's.
    static let outOfTheWay: TimeInterval = 7 * 24 * 3600

    /// A task for `request` whose callbacks go to `run` (not started).
    func task(_ request: URLRequest, for run: ExchangeRun) -> URLSessionDataTask {
        let task = session.dataTask(with: request)
        delegate.register(task, run)
        return task
    }

    private let statsLock = NSLock()
    private var heldBackBytes = 0

    /// Body bytes that waited for a stream's consumer (gw said `GW_WOULD_BLOCK`), in all.
    var heldBack: Int { statsLock.locked { heldBackBytes } }

    func noteHeldBack(_ bytes: Int) { statsLock.locked { heldBackBytes += bytes } }

    /// Tests: sees every task's end (its error, nil for a clean end), on the session's queue.
    func observeTaskEnds(_ observer: (@Sendable (URLSessionTask, (any Error)?) -> Void)?) {
        delegate.setObserver(observer)
    }

    // MARK: between gw's request view and URLSession

    /// The request of `view` as a URLRequest: every header gw sends (User-Agent included), the
    /// body's pieces in one `Data`. nil when URLSession cannot take the URL.
    static func request(_ view: gw_request_view) -> URLRequest? {
        guard let url = URL(string: String(cString: view.url)) else { return nil }
        var r = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: outOfTheWay)
        r.httpMethod = String(cString: view.method)
        r.httpShouldHandleCookies = false
        for i in 0..<view.header_count {
            let h = view.headers[i]
            r.addValue(String(cString: h.value), forHTTPHeaderField: String(cString: h.name))
        }
        if view.body_count > 0 {
            var body = Data(capacity: Int(clamping: view.body_len))
            for i in 0..<view.body_count {
                let piece = view.body[i]
                if piece.len > 0 { body.append(piece.data, count: piece.len) }
            }
            r.httpBody = body
        }
        return r
    }

    /// An answer's header fields as gw takes them: names that are HTTP tokens, values of
    /// visible ASCII, space and tab (gw refuses a whole head over one header it cannot read;
    /// a field URLSession decoded otherwise is left out instead).
    static func headerFields(_ response: HTTPURLResponse) -> [(String, String)] {
        response.allHeaderFields.compactMap { key, value in
            guard let name = key as? String, let value = value as? String, isToken(name), isFieldValue(value) else {
                return nil
            }
            return (name, value)
        }
    }

    private static func isToken(_ s: String) -> Bool {
        !s.isEmpty
            && s.utf8.allSatisfy { b in
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    return true
                default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
                }
            }
    }

    private static func isFieldValue(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 == 9 || (32...126).contains($0) }
    }

    /// What a failed task is to the exchange: `GW_TIMEOUT` for URLSession's own timeout,
    /// `GW_CANCELLED` for a cancel gw did not ask for (an invalidated session), else
    /// `GW_NETWORK`; `sent` when the request may have reached the gateway (the whole body
    /// went, or the answer had begun).
    static func failure(_ error: any Error, headSeen: Bool, bodySent: Bool) -> ExchangeRun.Ending {
        let ns = error as NSError
        let code = ns.domain == NSURLErrorDomain ? URLError.Code(rawValue: ns.code) : nil
        let said = (ns.userInfo[NSLocalizedDescriptionKey] as? String) ?? ns.localizedDescription
        let message = "URLSession: \(said) (\(ns.domain) \(ns.code))"
        let status: Int32
        switch code {
        case .timedOut?: status = GW_TIMEOUT
        case .cancelled?: status = GW_CANCELLED
        default: status = GW_NETWORK
        }
        // Failures of the connection's setup: nothing of the request went.
        let neverConnected: Set<URLError.Code> = [
            .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet,
            .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .appTransportSecurityRequiresSecureConnection, .internationalRoamingOff, .dataNotAllowed,
            .callIsActive,
        ]
        let sent = headSeen || (bodySent && !(code.map(neverConnected.contains) ?? false))
        return .failure(status: status, requestSent: sent, message: message)
    }
}

/// The session's delegate: routes each task's callbacks to its exchange, and never lets
/// URLSession follow a redirect (gw judges each hop: its cross-origin rule).
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [Int: ExchangeRun] = [:]
    private var observer: (@Sendable (URLSessionTask, (any Error)?) -> Void)?

    func register(_ task: URLSessionTask, _ run: ExchangeRun) {
        lock.locked { runs[task.taskIdentifier] = run }
    }

    func setObserver(_ o: (@Sendable (URLSessionTask, (any Error)?) -> Void)?) {
        lock.locked { observer = o }
    }

    private func run(_ task: URLSessionTask) -> ExchangeRun? {
        lock.locked { runs[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The 3xx comes to the exchange as the answer: it follows it (or refuses) itself.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        run(dataTask)?.received(head: response, from: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        run(dataTask)?.received(body: data, from: dataTask)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        run(task)?.sending(from: task)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (run, observer) = lock.locked { (runs.removeValue(forKey: task.taskIdentifier), self.observer) }
        // The observer first: a call this end completes returns after it saw the end.
        observer?(task, error)
        run?.completed(task, error: error)
    }
}

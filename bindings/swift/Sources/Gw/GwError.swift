import CGw
import Foundation

/// Every failure of a gw call (cancellation excepted: a cancelled `Task` gets
/// `CancellationError`).
///
/// ``status`` is gw's status: the gateway's HTTP status (400, 401, 429, 502, ...) or a
/// negative `GW_*` code. ``kind`` names it for a `switch`:
///
/// ```swift
/// do { _ = try await client.chat(request) }
/// catch let error as GwError {
///     switch error.kind {
///     case .rateLimited: print("retry after", error.response?.retryAfter ?? .zero)
///     case .invalidArgument: print("bad field:", error.param ?? "?")
///     default: print(error.localizedDescription)
///     }
/// }
/// ```
///
/// or catch one kind: `catch let error as GwError where error.kind == .timeout { ... }`.
/// Messages never hold the API key.
public struct GwError: Error, LocalizedError, Sendable, CustomStringConvertible {
    /// What went wrong, one case per gw status family.
    public enum Kind: Sendable, Hashable {
        /// The gateway answered 400.
        case badRequest
        /// The gateway answered 401 (missing or invalid API key).
        case unauthorized
        /// The gateway answered 403.
        case forbidden
        /// The gateway answered 404.
        case notFound
        /// The gateway answered 429 after gw's retries ran out.
        case rateLimited
        /// The gateway answered 5xx after gw's retries ran out.
        case serverError
        /// Any other HTTP status (see ``GwError/status``).
        case httpStatus
        /// Bad input: invalid JSON, a bad option, a documented limit broken (``GwError/param``
        /// names the field). Nothing was sent.
        case invalidArgument
        /// DNS, connect, reset or TLS failure.
        case network
        /// gw's connect, read-idle, first-byte or total deadline passed.
        case timeout
        /// The gateway's answer is not what the API promises.
        case decode
        /// gw stopped the call without the Task being cancelled (a `videoWait` progress
        /// closure threw, or a handle was cancelled by other means).
        case cancelled
        /// A vendor-style body reports failure, or a video task ended failed: ``GwError/body``
        /// is that body.
        case vendor
        /// An error event inside a stream, or a stream that ended before its terminal event.
        case stream
        /// An answer or a stream line over the configured size cap.
        case tooLarge
        /// A bug in gw (a caught panic) or a status this binding does not know.
        case `internal`

        init(status: Int) {
            switch status {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 429: self = .rateLimited
            case 500...599: self = .serverError
            case 100...499: self = .httpStatus
            case -1: self = .invalidArgument
            case -2: self = .network
            case -3: self = .timeout
            case -4: self = .decode
            case -5: self = .cancelled
            case -6: self = .vendor
            case -7: self = .stream
            case -8: self = .tooLarge
            default: self = .internal
            }
        }
    }

    /// gw's status: an HTTP status, or a negative `GW_*` code (`GW_TIMEOUT` is -3, ...).
    public let status: Int
    /// The family of ``status``.
    public var kind: Kind { Kind(status: status) }
    /// The error's message (from the gateway's error object, or gw's own).
    public let message: String
    /// The error object's `type`, e.g. `"invalid_request_error"`.
    public let type: String?
    /// The error object's `code`, e.g. `"invalid_api_key"`.
    public let code: String?
    /// The field or argument at fault, when gw or the gateway names one.
    public let param: String?
    /// The whole error object (`{"message","type","code",...}`) or, for ``Kind/vendor``, the
    /// vendor's (or failed task's) whole body.
    public let body: JSONValue?
    /// The HTTP exchange behind the failure, when there was one.
    public let response: GwResponseMeta?

    /// The gateway's request id (`x-request-id`), when it answered.
    public var requestId: String? { response?.requestId }

    /// gw's name of ``status``, e.g. `"GW_TIMEOUT"`.
    public var statusName: String { String(cString: gw_status_str(Int32(clamping: status))) }

    public var errorDescription: String? { description }

    public var description: String {
        var s = statusName
        if status > 0 { s += " (\(status))" }
        s += ": " + message
        let tags = [type, code == type ? nil : code].compactMap { $0 }
        if !tags.isEmpty { s += " [" + tags.joined(separator: "/") + "]" }
        if let id = requestId { s += " request_id=" + id }
        return s
    }

    public init(
        status: Int, message: String, type: String? = nil, code: String? = nil, param: String? = nil,
        body: JSONValue? = nil, response: GwResponseMeta? = nil
    ) {
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.body = body
        self.response = response
    }

    /// The error for a failed gw call from its status and error JSON.
    init(status: Int, errorJSON: String?, response: GwResponseMeta?) {
        let parsed = errorJSON.flatMap { try? JSONValue(json: $0) }
        let inner = parsed?["error"].flatMap { $0.objectValue != nil ? $0 : nil }
        func text(_ v: JSONValue?, _ key: String) -> String? {
            guard let m = v?[key] else { return nil }
            switch m {
            case .string(let s): return s
            case .int(let i): return String(i)
            case .null: return nil
            default: return m.jsonString
            }
        }
        let message =
            text(inner, "message") ?? text(parsed, "message") ?? text(parsed, "description")
            ?? text(parsed, "failure")
            ?? errorJSON.map { String($0.prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "gw call failed"
        self.init(
            status: status, message: message, type: text(inner, "type"),
            code: text(inner, "code") ?? text(parsed, "code"), param: text(inner, "param"),
            body: status == -6 ? parsed : (inner ?? parsed), response: response)
    }

    static func invalidArgument(_ param: String, _ message: String) -> GwError {
        GwError(
            status: -1, message: "\(param): \(message)", type: "invalid_request_error", code: "invalid_argument",
            param: param)
    }
}

/// What gw saw of the HTTP exchange behind a call: the final status, the gateway's request
/// id, the response headers (lower-case names), the attempts retries took, the time spent and
/// the URL (never with the key).
public struct GwResponseMeta: Sendable, Hashable {
    public let status: Int
    public let requestId: String?
    public let headers: [String: String]
    public let attempts: Int
    public let elapsed: Duration
    public let url: String?

    /// `retry-after-ms` or `retry-after` (seconds) when the gateway sent one.
    public var retryAfter: Duration? {
        if let ms = headers["retry-after-ms"].flatMap(Double.init) { return .milliseconds(ms) }
        if let s = headers["retry-after"].flatMap(Double.init) { return .seconds(s) }
        return nil
    }

    /// For fakes and previews (a mock ``GwClientProtocol``); gw's own come from the exchange.
    /// Header names are lowercase, as gw gives them.
    public init(
        status: Int, requestId: String? = nil, headers: [String: String] = [:], attempts: Int = 1,
        elapsed: Duration = .zero, url: String? = nil
    ) {
        self.status = status
        self.requestId = requestId
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.attempts = attempts
        self.elapsed = elapsed
        self.url = url
    }

    init?(json: JSONValue) {
        guard case .object(let o) = json else { return nil }
        status = o["status"]?.intValue ?? 0
        requestId = o["request_id"]?.stringValue
        var h: [String: String] = [:]
        for (k, v) in o["headers"]?.objectValue ?? [:] { h[k] = v.stringValue ?? v.jsonString }
        headers = h
        attempts = o["attempts"]?.intValue ?? 0
        elapsed = .milliseconds(o["elapsed_ms"]?.intValue ?? 0)
        url = o["url"]?.stringValue
    }
}

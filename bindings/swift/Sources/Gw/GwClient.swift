import CGw
import Foundation

/// A client of the gateway: one gw client (one connection pool) shared by every call.
///
/// `GwClient` is `Sendable`: share one across the app. Each call runs on a handle derived
/// for it (its own cancellation, per-call options and response metadata). With the built-in
/// transport it blocks one of the client's own threads (see ``GwOptions/maxThreads``), never a
/// thread of Swift's cooperative pool; with ``GwTransport/urlSession(_:)`` it holds no thread. Cancelling the calling `Task` cancels the call in gw, whatever it is
/// doing, and the call throws `CancellationError`.
///
/// Releasing the last reference frees the native client; calls and streams still in flight
/// keep what they need and finish normally.
///
/// ```swift
/// let client = try GwClient(GwOptions(baseURL: "https://gw.example", apiKey: key))
/// let answer = try await client.chat(ChatRequest(model: "gpt-4o", messages: [.user("Hi")]))
/// print(answer.text ?? "")
/// ```
public final class GwClient: Sendable {
    let base: Handle
    let pool: BlockingPool
    /// The client's total timeout (gw's 600 s unless set; nil: none), which a call's deadline
    /// counts from the call, the wait for a thread included.
    let totalTimeout: Duration?
    /// The URLSession every call goes through (``GwTransport/urlSession(_:)``); nil: gw's own
    /// stack on the client's threads.
    let session: URLSessionTransport?

    /// A client from typed options. With the defaults, the base URL and the key come from
    /// `GW_BASE_URL` and `GW_API_KEY`. Throws a ``GwError`` of kind `.invalidArgument` naming
    /// the option at fault.
    public convenience init(_ options: GwOptions = GwOptions()) throws {
        try self.init(optionsJSON: options.json(), maxThreads: options.maxThreads, transport: options.transport)
    }

    /// A client from gw's options JSON as is (e.g. read from a configuration file).
    public init(optionsJSON: JSONValue, maxThreads: Int = 64, transport: GwTransport = .builtIn) throws {
        if maxThreads < 1 { throw GwError.invalidArgument("maxThreads", "must be at least 1 (got \(maxThreads))") }
        if transport.sessionConfiguration != nil { try Self.checkForURLSession(optionsJSON) }
        var out: OpaquePointer?
        var err: UnsafeMutablePointer<CChar>?
        let status = try withCString(optionsJSON.jsonString, "options") { gw_client_create($0, &out, &err) }
        let errText = takeString(err)
        guard status == 0, let handle = out else {
            gw_client_free(out)
            throw GwError(status: status == 0 ? -99 : Int(status), errorJSON: errText, response: nil)
        }
        base = Handle(handle)
        pool = BlockingPool(cap: maxThreads)
        session = transport.sessionConfiguration.map(URLSessionTransport.init)
        // gw.h: total_timeout_ms defaults to 600000; 0 means none.
        let ms = optionsJSON["total_timeout_ms"]?.intValue ?? 600_000
        totalTimeout = ms > 0 ? .milliseconds(ms) : nil
    }

    deinit {
        // The threads go with the client (calls and streams still in flight finish first).
        pool.retire()
    }

    /// The cap on threads blocked in gw calls at once (``GwOptions/maxThreads``).
    public var maxThreads: Int { pool.cap }

    /// Threads the client holds now (busy or idle; idle ones exit after 10 s, and all of them as
    /// soon as they have no work once the client is released).
    public var threadCount: Int { pool.threadCount }

    /// The outcome of one blocking call, as its worker thread saw it.
    struct Outcome: Sendable {
        let status: Int32
        let text: Data?
        let meta: GwResponseMeta?
    }

    typealias OutSlot = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// One blocking gw call on its own derived handle, on a thread of the pool. `invoke` gets
    /// the handle and the `char **out` slot and returns gw's status. Returns the answer's
    /// bytes; throws the ``GwError`` of a failure, `CancellationError` when the task was
    /// cancelled (before anything was sent, if it already was).
    ///
    /// The total timeout (the call's, else the client's) runs from here: a call still waiting
    /// for a thread at its deadline throws `.timeout` then and is never sent, and a call that
    /// waited is sent with only the rest of it.
    func call(
        _ options: GwCallOptions, exchange: @autoclosure () throws -> ExchangeMaker?,
        _ invoke: @escaping @Sendable (OpaquePointer, OutSlot) -> Int32
    ) async throws -> Data {
        // The URLSession transport: the exchange's way, unless the call has none.
        if let session, let exchange = try exchange() { return try await call(options, session, exchange) }
        try Task.checkCancellation()
        let start = ContinuousClock.now
        let startTime = DispatchTime.now()
        let handle = try base.derive(options.json())
        let total = totalTimeout(options)
        let wantsMeta = options.onResponse != nil
        let target = CancelTarget(handle)
        let base = self.base
        let queueDeadline = total.map { t in
            (at: startTime + .nanoseconds(Int(clamping: t.wholeNanoseconds)), error: queueTimeout(t, "call"))
        }
        let outcome = try await runBlocking(pool, onCancel: { target.cancel() }, queueDeadline: queueDeadline) {
            var h = handle
            if let total {
                // Waited for a thread: gw gets what is left of the deadline, not all of it.
                let waited = ContinuousClock.now - start
                if waited >= total {
                    // Got a thread just as the deadline passed (before the expiry dropped it).
                    return Outcome(status: -3, text: GwClient.queueTimeoutJSON, meta: nil)
                }
                if waited >= .milliseconds(1) {
                    var rest = options
                    rest.totalTimeout = total - waited
                    // Options that derived once derive again; should it fail, the call keeps its handle.
                    if let again = try? base.derive(rest.json()) {
                        target.replace(with: again)
                        h = again
                    }
                }
            }
            var out: UnsafeMutablePointer<CChar>?
            let status = invoke(h.pointer, &out)
            let text = takeData(out)
            let meta = (status != 0 || wantsMeta) ? h.lastResponse() : nil
            return Outcome(status: status, text: text, meta: meta)
        }
        return try finish(outcome, options)
    }

    /// The call's total timeout, else the client's; nil for none (zero means none, gw.h).
    func totalTimeout(_ options: GwCallOptions) -> Duration? {
        if let t = options.totalTimeout { t > .zero ? t : nil } else { totalTimeout }
    }

    /// What a call (or a stream's open) still waiting for a thread at its deadline throws.
    func queueTimeout(_ total: Duration, _ what: String) -> GwError {
        GwError(
            status: -3,
            message: "the total timeout (\(total.wholeMilliseconds) ms) passed while the \(what) waited for one of the "
                + "client's \(pool.cap) threads (GwOptions.maxThreads); nothing was sent")
    }

    static let queueTimeoutJSON = Data(
        #"{"error":{"message":"the total timeout passed while the call waited for a thread; nothing was sent"}}"#.utf8)

    func finish(_ outcome: Outcome, _ options: GwCallOptions) throws -> Data {
        if outcome.status != 0 {
            if Task.isCancelled { throw CancellationError() }
            throw GwError(
                status: Int(outcome.status), errorJSON: outcome.text.map { String(decoding: $0, as: UTF8.self) },
                response: outcome.meta)
        }
        if let meta = outcome.meta { options.onResponse?(meta) }
        guard let text = outcome.text else {
            throw GwError(status: -4, message: "gw returned GW_OK without an answer")
        }
        return text
    }

    /// The common shape `int gw_xxx(client, request_json, out)`.
    func post(_ op: PostOp, _ body: Data, _ options: GwCallOptions) async throws -> Data {
        let request = try CText(body, "request")
        return try await call(options, exchange: try ExchangePath.maker("POST", op.path, request)) { h, out in
            request.with { op.invoke(h, $0, out) }
        }
    }
}

/// Library-wide facts and helpers.
public enum Gw {
    /// The version of the linked libgw, e.g. `"0.1.0"`.
    public static var version: String { String(cString: gw_version()) }

    /// gw's name of a status, e.g. `"GW_TIMEOUT"` for -3, `"GW_HTTP_STATUS"` for 502.
    public static func statusName(_ status: Int) -> String { String(cString: gw_status_str(Int32(clamping: status))) }

    /// Decodes an embedding sent with `"encoding_format": "base64"` (little-endian float32s)
    /// with gw's decoder.
    public static func decodeEmbedding(_ base64: String) throws -> [Float] {
        var floats: UnsafeMutablePointer<Float>?
        var count = 0
        var err: UnsafeMutablePointer<CChar>?
        let status = try withCString(base64, "base64") { gw_embedding_decode_err($0, &floats, &count, &err) }
        defer { gw_free(floats) }
        let errText = takeString(err)
        guard status == 0 else {
            throw GwError(status: Int(status), errorJSON: errText, response: nil)
        }
        guard let floats else { return [] }
        return Array(UnsafeBufferPointer(start: floats, count: count))
    }
}

/// The operations of the shape `int gw_xxx(client, request_json, out)`.
enum PostOp: Sendable {
    case chat, responses, embeddings, imageGenerate, imageEdit
    case videoCreate, videoGenerate, videoCharacter
    case vendorKText2Video, vendorKImage2Video, vendorKMultiImage2Video, vendorKEffects, vendorKExtend
    case vendorHImageToVideo, vendorMImagine, vendorIDescribe, vendorIGenerate, vendorITextToImage

    func invoke(
        _ h: OpaquePointer, _ body: UnsafePointer<CChar>, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    ) -> Int32 {
        switch self {
        case .chat: return gw_chat(h, body, out)
        case .responses: return gw_responses(h, body, out)
        case .embeddings: return gw_embeddings(h, body, out)
        case .imageGenerate: return gw_image_generate(h, body, out)
        case .imageEdit: return gw_image_edit(h, body, out)
        case .videoCreate: return gw_video_create(h, body, out)
        case .videoGenerate: return gw_video_generate(h, body, out)
        case .videoCharacter: return gw_video_character(h, body, out)
        case .vendorKText2Video: return gw_vendor_k_text2video(h, body, out)
        case .vendorKImage2Video: return gw_vendor_k_image2video(h, body, out)
        case .vendorKMultiImage2Video: return gw_vendor_k_multi_image2video(h, body, out)
        case .vendorKEffects: return gw_vendor_k_effects(h, body, out)
        case .vendorKExtend: return gw_vendor_k_extend(h, body, out)
        case .vendorHImageToVideo: return gw_vendor_h_image_to_video(h, body, out)
        case .vendorMImagine: return gw_vendor_m_imagine(h, body, out)
        case .vendorIDescribe: return gw_vendor_i_describe(h, body, out)
        case .vendorIGenerate: return gw_vendor_i_generate(h, body, out)
        case .vendorITextToImage: return gw_vendor_i_text_to_image(h, body, out)
        }
    }
}

/// JSON in and out of the typed layer.
enum Codec {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        do {
            let e = JSONEncoder()
            e.outputFormatting = [.withoutEscapingSlashes]
            return try e.encode(value)
        } catch {
            throw GwError.invalidArgument("request", "could not be encoded: \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw GwError(
                status: -4, message: "the answer does not decode as \(T.self): \(error)", type: "decode_error",
                body: try? JSONValue(data: data))
        }
    }
}

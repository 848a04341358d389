import CGw
import Foundation

// The gateway's operations. Each comes typed (Codable models), as JSONValue, and as Data in
// and Data out (the request bytes passed through as they are, the answer's bytes as gw got
// them). Every one takes GwCallOptions for this call only.

extension GwClient {
    func typed<Req: Encodable, Res: Decodable>(
        _ op: PostOp, _ request: Req, _ options: GwCallOptions
    ) async throws -> Res {
        try Codec.decode(Res.self, await post(op, Codec.encode(request), options))
    }

    func json(_ op: PostOp, _ request: JSONValue, _ options: GwCallOptions) async throws -> JSONValue {
        try Codec.decode(JSONValue.self, await post(op, Codec.encode(request), options))
    }

    // MARK: Chat

    /// POST /v1/chat/completions. `stream: true` is refused here: use ``chatStream(_:options:)-swift.method``.
    public func chat(_ request: ChatRequest, options: GwCallOptions = .none) async throws -> ChatCompletion {
        try await typed(.chat, request, options)
    }

    /// ``chat(_:options:)-swift.method`` with the request and answer as JSON.
    public func chat(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.chat, request, options)
    }

    /// ``chat(_:options:)-swift.method`` with the request's JSON bytes passed through as they are.
    public func chat(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.chat, request, options)
    }

    /// A streamed chat completion (gw sets `"stream": true`): the chunks, then
    /// ``GwStream/result()`` gives the `chat.completion` gw assembled from them.
    public func chatStream(_ request: ChatRequest, options: GwCallOptions = .none) -> GwStream<ChatCompletion> {
        GwStream(call: StreamCall(client: self, opener: .chat, body: { try Codec.encode(request) }, options: options))
    }

    /// ``chatStream(_:options:)-swift.method`` with the request and final answer as JSON.
    public func chatStream(_ request: JSONValue, options: GwCallOptions = .none) -> GwStream<JSONValue> {
        GwStream(call: StreamCall(client: self, opener: .chat, body: { try Codec.encode(request) }, options: options))
    }

    /// ``chatStream(_:options:)-swift.method`` with the request's JSON bytes as they are
    /// (``GwStream/resultData()`` gives the final answer's bytes).
    public func chatStream(_ request: Data, options: GwCallOptions = .none) -> GwStream<JSONValue> {
        GwStream(call: StreamCall(client: self, opener: .chat, body: { request }, options: options))
    }

    // MARK: Responses

    /// POST /v1/responses (the Responses format).
    public func responses(_ request: ResponsesRequest, options: GwCallOptions = .none) async throws -> ModelResponse {
        try await typed(.responses, request, options)
    }

    public func responses(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.responses, request, options)
    }

    public func responses(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.responses, request, options)
    }

    /// A streamed Responses call: its named events, then ``GwStream/result()`` gives the
    /// `response` of `response.completed` (or `response.incomplete`).
    public func responsesStream(_ request: ResponsesRequest, options: GwCallOptions = .none) -> GwStream<ModelResponse> {
        GwStream(call: StreamCall(client: self, opener: .responses, body: { try Codec.encode(request) }, options: options))
    }

    public func responsesStream(_ request: JSONValue, options: GwCallOptions = .none) -> GwStream<JSONValue> {
        GwStream(call: StreamCall(client: self, opener: .responses, body: { try Codec.encode(request) }, options: options))
    }

    public func responsesStream(_ request: Data, options: GwCallOptions = .none) -> GwStream<JSONValue> {
        GwStream(call: StreamCall(client: self, opener: .responses, body: { request }, options: options))
    }

    // MARK: Embeddings

    /// POST /v1/embeddings; `float` and `base64` vectors both come back as `[Float]`.
    public func embeddings(_ request: EmbeddingRequest, options: GwCallOptions = .none) async throws -> EmbeddingList {
        try await typed(.embeddings, request, options)
    }

    public func embeddings(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.embeddings, request, options)
    }

    public func embeddings(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.embeddings, request, options)
    }

    // MARK: Images

    /// POST /v1/images/generations.
    public func imageGenerate(_ request: ImageRequest, options: GwCallOptions = .none) async throws -> ImageResult {
        try await typed(.imageGenerate, request, options)
    }

    public func imageGenerate(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.imageGenerate, request, options)
    }

    public func imageGenerate(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.imageGenerate, request, options)
    }

    /// POST /v1/images/edits, JSON form (`image`, `mask` as URLs).
    public func imageEdit(_ request: ImageEditRequest, options: GwCallOptions = .none) async throws -> ImageResult {
        try await typed(.imageEdit, request, options)
    }

    public func imageEdit(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.imageEdit, request, options)
    }

    public func imageEdit(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.imageEdit, request, options)
    }

    /// POST /v1/images/edits as multipart/form-data: the request's fields as text parts, then
    /// `image` and `mask` as file parts. Cancellable mid-upload.
    public func imageEditUpload(
        _ request: ImageEditRequest, image: GwFile, mask: GwFile? = nil, options: GwCallOptions = .none
    ) async throws -> ImageResult {
        try Codec.decode(ImageResult.self, await imageEditUpload(Codec.encode(request), image: image, mask: mask, options: options))
    }

    /// ``imageEditUpload(_:image:mask:options:)-swift.method`` with the fields as JSON bytes.
    public func imageEditUpload(
        _ request: Data, image: GwFile, mask: GwFile? = nil, options: GwCallOptions = .none
    ) async throws -> Data {
        let body = try CText(request, "request")
        let image = try NativeFile(image, "image")
        let mask = try mask.map { try NativeFile($0, "mask") }
        return try await call(options, exchange: Self.upload(body, image, mask)) { h, out in
            body.with { json in
                image.with { img in
                    if let mask {
                        return mask.with { m in withUnsafePointer(to: m) { gw_image_edit_upload(h, json, img, $0, out) } }
                    }
                    return gw_image_edit_upload(h, json, img, nil, out)
                }
            }
        }
    }

    // MARK: Native format and raw requests

    /// POST /v1beta/models/{model}:generateContent (the native format; the key goes in `?key=`).
    public func generateContent(
        model: String, _ request: GenerateContentRequest, options: GwCallOptions = .none
    ) async throws -> GenerateContentResponse {
        try Codec.decode(GenerateContentResponse.self, await generateContent(model: model, Codec.encode(request), options: options))
    }

    public func generateContent(model: String, _ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try Codec.decode(JSONValue.self, await generateContent(model: model, Codec.encode(request), options: options))
    }

    public func generateContent(model: String, _ request: Data, options: GwCallOptions = .none) async throws -> Data {
        let m = try CText(model, "model")
        let body = try CText(request, "request")
        let path = { "/v1beta/models/" + (try ExchangePath.segment(model, argument: "model", template: "model")) + ":generateContent" }
        return try await call(options, exchange: try ExchangePath.maker("POST", path(), body)) { h, out in
            m.with { m in body.with { gw_generate_content(h, m, $0, out) } }
        }
    }

    /// Any documented operation by method and path (`"GET"` or `"POST"`, e.g.
    /// `"/vendorR/task/abc"`), with gw's auth placement, limit checks and answer rules for
    /// that path. `body` is for POST.
    public func request(_ method: String, _ path: String, body: JSONValue? = nil, options: GwCallOptions = .none)
        async throws -> JSONValue
    {
        try Codec.decode(JSONValue.self, await request(method, path, bodyData: body.map { try Codec.encode($0) }, options: options))
    }

    /// ``request(_:_:body:options:)`` with the body's and answer's bytes.
    public func request(_ method: String, _ path: String, bodyData: Data?, options: GwCallOptions = .none)
        async throws -> Data
    {
        let m = try CText(method, "method")
        let p = try CText(path, "path")
        let b = try bodyData.map { try CText($0, "body") }
        return try await call(options, exchange: try ExchangePath.maker(method, path, b)) { h, out in
            m.with { m in p.with { p in b.with { gw_request(h, m, p, $0, out) } } }
        }
    }
}

extension GwClient {
    /// The multipart upload's exchange (gw encodes the form and keeps a copy of it).
    static func upload(_ body: CText, _ image: NativeFile, _ mask: NativeFile?) -> ExchangeMaker {
        { h, ex, err in
            body.with { json in
                image.with { (img: UnsafePointer<gw_file>) in
                    guard let mask else { return gw_exchange_new_image_edit_upload(h, json, img, nil, ex, err) }
                    return mask.with { (m: UnsafePointer<gw_file>) in gw_exchange_new_image_edit_upload(h, json, img, m, ex, err) }
                }
            }
        }
    }
}

/// A GwFile's bytes and names kept for a call that runs on another thread.
struct NativeFile: Sendable {
    let data: Data
    let filename: CText?
    let contentType: CText?

    init(_ file: GwFile, _ field: String) throws {
        data = file.data
        filename = try file.filename.map { try CText($0, field + ".filename") }
        contentType = try file.contentType.map { try CText($0, field + ".contentType") }
    }

    func with<R>(_ body: (gw_file) -> R) -> R {
        data.withUnsafeBytes { raw in
            filename.with { name in
                contentType.with { type in
                    // gw refuses a NULL data pointer, even for an empty file.
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { one in
                        let base = raw.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(one.baseAddress!)
                        return body(
                            gw_file(
                                struct_size: MemoryLayout<gw_file>.size, data: base, len: raw.count, filename: name,
                                content_type: type))
                    }
                }
            }
        }
    }

    func with<R>(_ body: (UnsafePointer<gw_file>) -> R) -> R {
        with { (f: gw_file) in withUnsafePointer(to: f) { body($0) } }
    }
}

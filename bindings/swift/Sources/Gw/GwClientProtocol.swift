import Foundation

/// What ``GwClient`` does, as a protocol: code that takes `any GwClientProtocol` (a view
/// model, a service) runs against the gateway with a `GwClient` and against a fake in tests
/// and SwiftUI previews.
///
/// It holds the typed form of every operation, ``request(_:_:body:options:)`` and the vendor
/// operations (JSON only); the `JSONValue` and `Data` forms stay on `GwClient`. A fake
/// builds answers with the models' memberwise initializers and streams with
/// ``GwStream/init(events:result:)``:
///
/// ```swift
/// struct FakeGw: GwClientProtocol {
///     func chat(_ request: ChatRequest, options: GwCallOptions) async throws -> ChatCompletion {
///         ChatCompletion(choices: [.init(message: .assistant("Hi"), finishReason: .stop)])
///     }
///     func chatStream(_ request: ChatRequest, options: GwCallOptions) -> GwStream<ChatCompletion> {
///         GwStream(events: [.chat(ChatCompletionChunk(choices: [.init(delta: ChatDelta(content: .text("Hi")))]))],
///                  result: ChatCompletion(choices: [.init(message: .assistant("Hi"))]))
///     }
///     // ... the other requirements
/// }
/// ```
///
/// A fake's `videoWait` calls `progress` with every record it reports, the terminal one too,
/// as gw does: the default `videoUpdates` streams exactly those.
///
/// The requirements take `options` explicitly (a protocol cannot give defaults); the
/// extension adds the forms without it, so `client.chat(request)` reads the same on both.
/// The vendor operations with a fixed path and ``videoUpdates(_:taskId:interval:timeout:options:)``
/// have default implementations (through ``request(_:_:body:options:)`` and
/// ``videoWait(_:taskId:interval:timeout:options:progress:)``), so a fake need not write them;
/// `vendorFEdit` has none (gw checks and encodes its multi-segment slug itself).
public protocol GwClientProtocol: Sendable {
    func chat(_ request: ChatRequest, options: GwCallOptions) async throws -> ChatCompletion
    func chatStream(_ request: ChatRequest, options: GwCallOptions) -> GwStream<ChatCompletion>
    func responses(_ request: ResponsesRequest, options: GwCallOptions) async throws -> ModelResponse
    func responsesStream(_ request: ResponsesRequest, options: GwCallOptions) -> GwStream<ModelResponse>
    func embeddings(_ request: EmbeddingRequest, options: GwCallOptions) async throws -> EmbeddingList
    func imageGenerate(_ request: ImageRequest, options: GwCallOptions) async throws -> ImageResult
    func imageEdit(_ request: ImageEditRequest, options: GwCallOptions) async throws -> ImageResult
    func imageEditUpload(_ request: ImageEditRequest, image: GwFile, mask: GwFile?, options: GwCallOptions)
        async throws -> ImageResult
    func generateContent(model: String, _ request: GenerateContentRequest, options: GwCallOptions)
        async throws -> GenerateContentResponse
    func videoCreate(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask
    func videoGenerate(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask
    func videoCharacter(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask
    func videoRemix(videoId: String, _ request: VideoRemixRequest, options: GwCallOptions) async throws -> VideoTask
    func videoStatus(_ family: VideoFamily, taskId: String, options: GwCallOptions) async throws -> VideoTask
    func videoWait(
        _ family: VideoFamily, taskId: String, interval: Duration?, timeout: Duration?, options: GwCallOptions,
        progress: (@Sendable (VideoTask) throws -> Void)?
    ) async throws -> VideoTask
    func videoUpdates(
        _ family: VideoFamily, taskId: String, interval: Duration?, timeout: Duration?, options: GwCallOptions
    ) -> AsyncThrowingStream<VideoTask, any Error>
    func request(_ method: String, _ path: String, body: JSONValue?, options: GwCallOptions) async throws -> JSONValue

    func vendorKText2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorKImage2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorKMultiImage2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorKEffects(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorKExtend(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorHImageToVideo(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorMImagine(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorIDescribe(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorIGenerate(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorITextToImage(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
    func vendorFEdit(modelSlug: String, _ request: JSONValue, options: GwCallOptions) async throws -> JSONValue
}

extension GwClient: GwClientProtocol {}

// The forms without `options` (GwClient's own methods default it; these are for code holding
// the protocol). Each has a different name from its requirement, so none can stand in for a
// requirement a fake forgot.
extension GwClientProtocol {
    public func chat(_ request: ChatRequest) async throws -> ChatCompletion { try await chat(request, options: .none) }
    public func chatStream(_ request: ChatRequest) -> GwStream<ChatCompletion> { chatStream(request, options: .none) }
    public func responses(_ request: ResponsesRequest) async throws -> ModelResponse {
        try await responses(request, options: .none)
    }
    public func responsesStream(_ request: ResponsesRequest) -> GwStream<ModelResponse> {
        responsesStream(request, options: .none)
    }
    public func embeddings(_ request: EmbeddingRequest) async throws -> EmbeddingList {
        try await embeddings(request, options: .none)
    }
    public func imageGenerate(_ request: ImageRequest) async throws -> ImageResult {
        try await imageGenerate(request, options: .none)
    }
    public func imageEdit(_ request: ImageEditRequest) async throws -> ImageResult {
        try await imageEdit(request, options: .none)
    }
    public func imageEditUpload(_ request: ImageEditRequest, image: GwFile, mask: GwFile? = nil) async throws -> ImageResult {
        try await imageEditUpload(request, image: image, mask: mask, options: .none)
    }
    public func generateContent(model: String, _ request: GenerateContentRequest) async throws -> GenerateContentResponse {
        try await generateContent(model: model, request, options: .none)
    }
    public func videoCreate(_ request: VideoRequest) async throws -> VideoTask { try await videoCreate(request, options: .none) }
    public func videoGenerate(_ request: VideoRequest) async throws -> VideoTask {
        try await videoGenerate(request, options: .none)
    }
    public func videoCharacter(_ request: VideoRequest) async throws -> VideoTask {
        try await videoCharacter(request, options: .none)
    }
    public func videoRemix(videoId: String, _ request: VideoRemixRequest) async throws -> VideoTask {
        try await videoRemix(videoId: videoId, request, options: .none)
    }
    public func videoStatus(_ family: VideoFamily, taskId: String) async throws -> VideoTask {
        try await videoStatus(family, taskId: taskId, options: .none)
    }
    public func videoWait(
        _ family: VideoFamily, taskId: String, interval: Duration? = nil, timeout: Duration? = nil,
        progress: (@Sendable (VideoTask) throws -> Void)? = nil
    ) async throws -> VideoTask {
        try await videoWait(family, taskId: taskId, interval: interval, timeout: timeout, options: .none, progress: progress)
    }
    public func videoUpdates(_ family: VideoFamily, taskId: String, interval: Duration? = nil, timeout: Duration? = nil)
        -> AsyncThrowingStream<VideoTask, any Error>
    {
        videoUpdates(family, taskId: taskId, interval: interval, timeout: timeout, options: .none)
    }
    public func request(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        try await request(method, path, body: body, options: .none)
    }
}

// Default implementations that are the operations themselves, not stubs: each fixed-path
// vendor operation is its documented path through `request` (gw applies the same rules
// there), and
// videoUpdates is videoWait's progress as a stream (as GwClient's own is).
extension GwClientProtocol {
    /// The records of a wait as they come, the terminal one last: an `AsyncThrowingStream`
    /// that ends with the task (or throws as `videoWait` does). Ending the loop early cancels
    /// the wait. `GwClient` uses this one too.
    public func videoUpdates(
        _ family: VideoFamily, taskId: String, interval: Duration?, timeout: Duration?, options: GwCallOptions
    ) -> AsyncThrowingStream<VideoTask, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await self.videoWait(
                        family, taskId: taskId, interval: interval, timeout: timeout, options: options
                    ) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func post(_ path: String, _ body: JSONValue, _ options: GwCallOptions) async throws -> JSONValue {
        try await request("POST", path, body: body, options: options)
    }
    public func vendorKText2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorK/v1/videos/text2video", request, options)
    }
    public func vendorKImage2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorK/v1/videos/image2video", request, options)
    }
    public func vendorKMultiImage2Video(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorK/v1/videos/multi-image2video", request, options)
    }
    public func vendorKEffects(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorK/video/effects", request, options)
    }
    public func vendorKExtend(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorK/video/extend", request, options)
    }
    public func vendorHImageToVideo(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorH/image-to-video", request, options)
    }
    public func vendorMImagine(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorM/submit/imagine", request, options)
    }
    public func vendorIDescribe(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorI/describe", request, options)
    }
    public func vendorIGenerate(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorI/generate", request, options)
    }
    public func vendorITextToImage(_ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        try await post("/vendorI/text-to-image", request, options)
    }
}

// MARK: Streams a fake can make

extension GwStream {
    /// A stream that gives `events`, then `result` from ``result()`` (for fakes and SwiftUI
    /// previews; ``GwEvent/chat(_:index:choiceIndex:)`` and ``GwEvent/response(_:index:)``
    /// build the events). Like a real stream it is iterated once; ``response`` is nil.
    public init(events: [GwEvent], result: Final) {
        self.init(events: AsyncThrowingStream { c in
            for e in events { c.yield(e) }
            c.finish()
        }, result: { result })
    }

    /// A stream of `events` as they come (a fake's own pacing, or a failure with
    /// `finish(throwing:)`); ``result()`` then awaits `result`.
    public init(events: AsyncThrowingStream<GwEvent, any Error>, result: @escaping @Sendable () async throws -> Final) {
        self.init(call: nil, scripted: ScriptedStream(events: events, result: result))
    }
}

/// What a stream made by ``GwStream/init(events:result:)`` gives.
final class ScriptedStream<Final: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var events: AsyncThrowingStream<GwEvent, any Error>?
    private let final: @Sendable () async throws -> Final

    init(events: AsyncThrowingStream<GwEvent, any Error>, result: @escaping @Sendable () async throws -> Final) {
        self.events = events
        self.final = result
    }

    /// The events' cursor for the one loop; nil for any later one (which then throws
    /// `stream_reused`, as a real stream's does).
    func claim() -> Cursor? {
        lock.lock()
        defer { lock.unlock() }
        guard let e = events else { return nil }
        events = nil
        return Cursor(e.makeAsyncIterator())
    }

    func result() async throws -> Final { try await final() }

    /// The result's JSON, when `Final` is `Encodable` (every answer model and JSONValue).
    func resultData() async throws -> Data {
        let value = try await final()
        guard let encodable = value as? any Encodable else {
            throw GwError(status: -4, message: "\(Final.self) is not Encodable: a scripted stream has no result bytes")
        }
        return try Codec.encode(encodable)
    }

    /// The iterator of the one loop over the events.
    final class Cursor {
        private var it: AsyncThrowingStream<GwEvent, any Error>.Iterator
        init(_ it: AsyncThrowingStream<GwEvent, any Error>.Iterator) { self.it = it }
        func next() async throws -> GwEvent? { try await it.next() }
    }
}

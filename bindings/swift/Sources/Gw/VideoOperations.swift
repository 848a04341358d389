import CGw
import Foundation

extension GwClient {
    /// POST /v1/video/create: `{"task_id","status"}`; poll with ``VideoFamily/unified``.
    public func videoCreate(_ request: VideoRequest, options: GwCallOptions = .none) async throws -> VideoTask {
        try await typed(.videoCreate, request, options)
    }
    public func videoCreate(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.videoCreate, request, options)
    }
    public func videoCreate(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.videoCreate, request, options)
    }

    /// POST /v1/video/generations (unified format); poll with ``VideoFamily/unified``.
    public func videoGenerate(_ request: VideoRequest, options: GwCallOptions = .none) async throws -> VideoTask {
        try await typed(.videoGenerate, request, options)
    }
    public func videoGenerate(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.videoGenerate, request, options)
    }
    public func videoGenerate(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.videoGenerate, request, options)
    }

    /// POST /v1/videos (a video with a character): `{"id","status"}`; poll with
    /// ``VideoFamily/character``.
    public func videoCharacter(_ request: VideoRequest, options: GwCallOptions = .none) async throws -> VideoTask {
        try await typed(.videoCharacter, request, options)
    }
    public func videoCharacter(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.videoCharacter, request, options)
    }
    public func videoCharacter(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.videoCharacter, request, options)
    }

    /// POST /v1/videos/{videoId}/remix; poll with ``VideoFamily/character``.
    public func videoRemix(videoId: String, _ request: VideoRemixRequest, options: GwCallOptions = .none)
        async throws -> VideoTask
    {
        try Codec.decode(VideoTask.self, await videoRemix(videoId: videoId, Codec.encode(request), options: options))
    }
    public func videoRemix(videoId: String, _ request: Data, options: GwCallOptions = .none) async throws -> Data {
        let id = try CText(videoId, "videoId")
        let body = try CText(request, "request")
        let path = { "/v1/videos/" + (try ExchangePath.segment(videoId, argument: "video_id", template: "id")) + "/remix" }
        return try await call(options, exchange: try ExchangePath.maker("POST", path(), body)) { h, out in
            id.with { id in body.with { gw_video_remix(h, id, $0, out) } }
        }
    }

    /// Queries a video task once (the id is URL-encoded by gw: any text is safe).
    public func videoStatus(_ family: VideoFamily, taskId: String, options: GwCallOptions = .none)
        async throws -> VideoTask
    {
        try Codec.decode(VideoTask.self, await videoStatusData(family, taskId: taskId, options: options))
    }

    /// ``videoStatus(_:taskId:options:)`` as the record's bytes.
    public func videoStatusData(_ family: VideoFamily, taskId: String, options: GwCallOptions = .none)
        async throws -> Data
    {
        let id = try CText(taskId, "taskId")
        return try await call(options, exchange: try ExchangePath.maker("GET", ExchangePath.videoStatus(family, taskId), nil)) {
            h, out in id.with { gw_video_status(h, family.rawValue, $0, out) }
        }
    }

    /// Polls a video task until it is done, every `interval` (2 s by default) for at most
    /// `timeout` (600 s): the polls and the waits between them are gw's, on one thread of the
    /// client's with the built-in transport, as URLSession requests and timers (no thread
    /// held) with ``GwTransport/urlSession(_:)``. `progress` sees every record polled; throwing from it stops the wait
    /// with that error. A task that failed is a ``GwError`` of kind `.vendor` whose
    /// ``GwError/body`` is the record; past `timeout`, `.timeout`. Cancelling the task stops
    /// the wait at once, mid-poll or mid-interval.
    public func videoWait(
        _ family: VideoFamily, taskId: String, interval: Duration? = nil, timeout: Duration? = nil,
        options: GwCallOptions = .none, progress: (@Sendable (VideoTask) throws -> Void)? = nil
    ) async throws -> VideoTask {
        var forward: (@Sendable (Data) throws -> Void)?
        if let progress {
            forward = { @Sendable data in try progress(try Codec.decode(VideoTask.self, data)) }
        }
        return try Codec.decode(
            VideoTask.self,
            await videoWaitData(family, taskId: taskId, interval: interval, timeout: timeout, options: options, progress: forward))
    }

    /// ``videoWait(_:taskId:interval:timeout:options:progress:)`` with the records as bytes.
    public func videoWaitData(
        _ family: VideoFamily, taskId: String, interval: Duration? = nil, timeout: Duration? = nil,
        options: GwCallOptions = .none, progress: (@Sendable (Data) throws -> Void)? = nil
    ) async throws -> Data {
        let id = try CText(taskId, "taskId")
        var wait: [String: JSONValue] = [:]
        try wait.setMillis("interval_ms", interval)
        try wait.setMillis("timeout_ms", timeout)
        let waitJSON = wait.isEmpty ? nil : try CText(JSONValue.object(wait).jsonString, "wait options")
        let box = progress.map(ProgressBox.init)
        do {
            if let session {
                // The URLSession transport: gw's wait as an exchange (gw_exchange_new_video_wait),
                // every poll a request of the session's, every record an event for `progress`.
                let code = family.rawValue
                let make: ExchangeMaker = { h, ex, err in
                    id.with { id in waitJSON.with { w in gw_exchange_new_video_wait(h, code, id, w, ex, err) } }
                }
                let data = try await call(options, session, make, progress: box)
                if let thrown = box?.thrown { throw thrown }  // it threw at the last record
                return data
            }
            // gw's poll loop is one blocking call on gw's own stack.
            return try await call(options, exchange: nil) { h, out in
                id.with { id in
                    waitJSON.with { w in
                        guard let box else { return gw_video_wait(h, family.rawValue, id, w, nil, nil, out) }
                        return withExtendedLifetime(box) {
                            gw_video_wait(
                                h, family.rawValue, id, w, progressTrampoline, Unmanaged.passUnretained(box).toOpaque(), out)
                        }
                    }
                }
            }
        } catch let e as GwError where e.kind == .cancelled {
            // The progress closure threw: its own error, not gw's GW_CANCELLED.
            if let thrown = box?.thrown { throw thrown }
            throw e
        }
    }
}

/// The progress closure of one wait, and what it threw.
final class ProgressBox: @unchecked Sendable {
    let progress: @Sendable (Data) throws -> Void
    var thrown: (any Error)?
    init(_ progress: @escaping @Sendable (Data) throws -> Void) { self.progress = progress }
}

/// gw's progress callback: never lets a Swift error cross into gw; returns 1 to stop.
private let progressTrampoline: gw_progress_cb = { _, task, user in
    guard let user else { return 0 }
    let box = Unmanaged<ProgressBox>.fromOpaque(user).takeUnretainedValue()
    do {
        try box.progress(Data(bytes: task, count: strlen(task)))
        return 0
    } catch {
        box.thrown = error
        return 1
    }
}

// MARK: Vendor operations

extension GwClient {
    /// POST /vendorK/v1/videos/text2video; poll with ``VideoFamily/vendorK``.
    public func vendorKText2Video(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorKText2Video, request, options)
    }
    public func vendorKText2Video(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorKText2Video, request, options)
    }
    /// POST /vendorK/v1/videos/image2video; poll with ``VideoFamily/vendorK``.
    public func vendorKImage2Video(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorKImage2Video, request, options)
    }
    public func vendorKImage2Video(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorKImage2Video, request, options)
    }
    /// POST /vendorK/v1/videos/multi-image2video; poll with ``VideoFamily/vendorK``.
    public func vendorKMultiImage2Video(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorKMultiImage2Video, request, options)
    }
    public func vendorKMultiImage2Video(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorKMultiImage2Video, request, options)
    }
    /// POST /vendorK/video/effects: `{"video": URL, "effect"}`.
    public func vendorKEffects(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorKEffects, request, options)
    }
    public func vendorKEffects(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorKEffects, request, options)
    }
    /// POST /vendorK/video/extend: `{"video_id"}`.
    public func vendorKExtend(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorKExtend, request, options)
    }
    public func vendorKExtend(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorKExtend, request, options)
    }
    /// POST /vendorH/image-to-video; `code` != 0 in the answer is a `.vendor` error.
    public func vendorHImageToVideo(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorHImageToVideo, request, options)
    }
    public func vendorHImageToVideo(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorHImageToVideo, request, options)
    }
    /// POST /vendorM/submit/imagine; `code` != 1 in the answer is a `.vendor` error.
    public func vendorMImagine(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorMImagine, request, options)
    }
    public func vendorMImagine(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorMImagine, request, options)
    }
    /// POST /vendorI/describe: `{"image": URL}` -> `{"descriptions": [...]}`.
    public func vendorIDescribe(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorIDescribe, request, options)
    }
    public func vendorIDescribe(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorIDescribe, request, options)
    }
    /// POST /vendorI/generate: `{"prompt","aspect_ratio"}`.
    public func vendorIGenerate(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorIGenerate, request, options)
    }
    public func vendorIGenerate(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorIGenerate, request, options)
    }
    /// POST /vendorI/text-to-image: `{"prompt"}`.
    public func vendorITextToImage(_ request: JSONValue, options: GwCallOptions = .none) async throws -> JSONValue {
        try await json(.vendorITextToImage, request, options)
    }
    public func vendorITextToImage(_ request: Data, options: GwCallOptions = .none) async throws -> Data {
        try await post(.vendorITextToImage, request, options)
    }
    /// POST /vendorF/{modelSlug}/edit: `{"image": URL, "prompt"}`.
    public func vendorFEdit(modelSlug: String, _ request: JSONValue, options: GwCallOptions = .none)
        async throws -> JSONValue
    {
        try Codec.decode(JSONValue.self, await vendorFEdit(modelSlug: modelSlug, Codec.encode(request), options: options))
    }
    public func vendorFEdit(modelSlug: String, _ request: Data, options: GwCallOptions = .none) async throws -> Data {
        let slug = try CText(modelSlug, "modelSlug")
        let body = try CText(request, "request")
        let path = { "/vendorF/" + (try ExchangePath.segments(modelSlug, argument: "model_slug", template: "model_slug")) + "/edit" }
        return try await call(options, exchange: try ExchangePath.maker("POST", path(), body)) { h, out in
            slug.with { s in body.with { gw_vendor_f_edit(h, s, $0, out) } }
        }
    }
}

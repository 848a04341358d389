import Foundation

/// Which status endpoint a video task is polled on.
public enum VideoFamily: Int32, Sendable, Hashable, CaseIterable {
    /// GET /v1/video/generations/{id}: tasks of `videoCreate` and `videoGenerate`.
    case unified = 0
    /// GET /v1/videos/{id}: tasks of `videoCharacter` and `videoRemix`.
    case character = 1
    /// GET /vendorK/v1/videos/{id}.
    case vendorK = 2
    /// GET /vendorR/task/{taskId}.
    case vendorR = 3
}

/// POST /v1/video/create, /v1/video/generations, and (with ``characterId``) /v1/videos.
public struct VideoRequest: Codable, Sendable, Hashable {
    public var model: String
    public var prompt: String
    /// Seconds.
    public var duration: Int?
    public var characterId: String?
    public var size: String?
    public var extra: [String: JSONValue]

    public init(
        model: String, prompt: String, duration: Int? = nil, characterId: String? = nil, size: String? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.prompt = prompt
        self.duration = duration
        self.characterId = characterId
        self.size = size
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        prompt = try d.req("prompt")
        duration = try d.opt("duration")
        characterId = try d.opt("character_id")
        size = try d.opt("size")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("prompt", prompt)
        try e.put("duration", duration)
        try e.put("character_id", characterId)
        try e.put("size", size)
        try e.extra(extra)
    }
}

/// POST /v1/videos/{id}/remix.
public struct VideoRemixRequest: Codable, Sendable, Hashable {
    public var prompt: String
    public var size: String?
    public init(prompt: String, size: String? = nil) {
        self.prompt = prompt
        self.size = size
    }
}

/// A video task as the unified and character families report it. Vendor families nest theirs
/// differently: their fields stay in ``extra``.
public struct VideoTask: Codable, Sendable, Hashable {
    public var id: String?
    public var taskId: String?
    public var status: String?
    public var progress: Double?
    public var videoURL: String?
    public var error: JSONValue?
    public var model: String?
    public var extra: [String: JSONValue]

    /// The id to poll with: `task_id` when present, else `id`.
    public var pollId: String? { taskId ?? id }

    public init(
        id: String? = nil, taskId: String? = nil, status: String? = nil, progress: Double? = nil,
        videoURL: String? = nil, error: JSONValue? = nil, model: String? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.id, self.taskId, self.status, self.progress) = (id, taskId, status, progress)
        (self.videoURL, self.error, self.model, self.extra) = (videoURL, error, model, extra)
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        id = try d.opt("id")
        taskId = try d.opt("task_id")
        status = try d.opt("status")
        progress = try d.opt("progress")
        videoURL = try d.opt("video_url")
        error = try d.opt("error")
        model = try d.opt("model")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("id", id)
        try e.put("task_id", taskId)
        try e.put("status", status)
        try e.put("progress", progress)
        try e.put("video_url", videoURL)
        try e.put("error", error)
        try e.put("model", model)
        try e.extra(extra)
    }
}

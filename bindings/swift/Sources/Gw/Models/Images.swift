import Foundation

/// POST /v1/images/generations.
public struct ImageRequest: Codable, Sendable, Hashable {
    public var model: String
    public var prompt: String
    /// `<width>x<height>`.
    public var size: String?
    /// -1 to 2147483647.
    public var seed: Int?
    /// 1 to 10.
    public var guidanceScale: Double?
    /// `"url"` or `"b64_json"`.
    public var responseFormat: String?
    public var watermark: Bool?
    public var n: Int?
    public var extra: [String: JSONValue]

    public init(
        model: String, prompt: String, size: String? = nil, seed: Int? = nil, guidanceScale: Double? = nil,
        responseFormat: String? = nil, watermark: Bool? = nil, n: Int? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.prompt = prompt
        self.size = size
        self.seed = seed
        self.guidanceScale = guidanceScale
        self.responseFormat = responseFormat
        self.watermark = watermark
        self.n = n
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        prompt = try d.req("prompt")
        size = try d.opt("size")
        seed = try d.opt("seed")
        guidanceScale = try d.opt("guidance_scale")
        responseFormat = try d.opt("response_format")
        watermark = try d.opt("watermark")
        n = try d.opt("n")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("prompt", prompt)
        try e.put("size", size)
        try e.put("seed", seed)
        try e.put("guidance_scale", guidanceScale)
        try e.put("response_format", responseFormat)
        try e.put("watermark", watermark)
        try e.put("n", n)
        try e.extra(extra)
    }
}

/// POST /v1/images/edits: JSON with ``image`` (and ``mask``) as URLs, or, with
/// ``GwClient/imageEditUpload(_:image:mask:options:)-swift.method``, the same fields as form parts beside
/// uploaded files (``image`` and ``mask`` then stay nil).
public struct ImageEditRequest: Codable, Sendable, Hashable {
    public var model: String
    public var prompt: String
    public var image: String?
    public var mask: String?
    public var n: Int?
    public var size: String?
    public var extra: [String: JSONValue]

    public init(
        model: String, prompt: String, image: String? = nil, mask: String? = nil, n: Int? = nil,
        size: String? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.prompt = prompt
        self.image = image
        self.mask = mask
        self.n = n
        self.size = size
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        prompt = try d.req("prompt")
        image = try d.opt("image")
        mask = try d.opt("mask")
        n = try d.opt("n")
        size = try d.opt("size")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("prompt", prompt)
        try e.put("image", image)
        try e.put("mask", mask)
        try e.put("n", n)
        try e.put("size", size)
        try e.extra(extra)
    }
}

/// A file sent from memory in a multipart upload.
public struct GwFile: Sendable, Hashable {
    public var data: Data
    /// Sent as the part's file name; nil gives `image.png`.
    public var filename: String?
    /// MIME type; nil gives `application/octet-stream`.
    public var contentType: String?

    public init(data: Data, filename: String? = nil, contentType: String? = nil) {
        self.data = data
        self.filename = filename
        self.contentType = contentType
    }
}

/// The answer of image generation and edits.
public struct ImageResult: Codable, Sendable, Hashable {
    public var created: Int?
    public var data: [Image]
    public var model: String?
    public var usage: JSONValue?
    public var extra: [String: JSONValue]

    public init(
        created: Int? = nil, data: [Image], model: String? = nil, usage: JSONValue? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.created, self.data, self.model, self.usage, self.extra) = (created, data, model, usage, extra)
    }

    public struct Image: Codable, Sendable, Hashable {
        public var url: String?
        public var b64JSON: String?
        public var revisedPrompt: String?
        public var seed: Int?
        public var extra: [String: JSONValue]

        public init(
            url: String? = nil, b64JSON: String? = nil, revisedPrompt: String? = nil, seed: Int? = nil,
            extra: [String: JSONValue] = [:]
        ) {
            (self.url, self.b64JSON, self.revisedPrompt, self.seed, self.extra) = (url, b64JSON, revisedPrompt, seed, extra)
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            url = try d.opt("url")
            b64JSON = try d.opt("b64_json")
            revisedPrompt = try d.opt("revised_prompt")
            seed = try d.opt("seed")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("url", url)
            try e.put("b64_json", b64JSON)
            try e.put("revised_prompt", revisedPrompt)
            try e.put("seed", seed)
            try e.extra(extra)
        }
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        created = try d.opt("created")
        data = try d.opt("data") ?? []
        model = try d.opt("model")
        usage = try d.opt("usage")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("created", created)
        try e.put("data", data)
        try e.put("model", model)
        try e.put("usage", usage)
        try e.extra(extra)
    }
}

import Foundation

/// POST /v1/embeddings.
public struct EmbeddingRequest: Codable, Sendable, Hashable {
    public var model: String
    /// A string, an array of strings, or an array of token arrays.
    public var input: JSONValue
    /// `"float"` (default) or `"base64"`: the answer's vectors are `[Float]` either way.
    public var encodingFormat: String?
    public var dimensions: Int?
    public var extra: [String: JSONValue]

    public init(
        model: String, input: [String], encodingFormat: String? = nil, dimensions: Int? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.init(model: model, input: .array(input.map { .string($0) }), encodingFormat: encodingFormat, dimensions: dimensions, extra: extra)
    }

    public init(
        model: String, input: JSONValue, encodingFormat: String? = nil, dimensions: Int? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.input = input
        self.encodingFormat = encodingFormat
        self.dimensions = dimensions
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        input = try d.req("input")
        encodingFormat = try d.opt("encoding_format")
        dimensions = try d.opt("dimensions")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("input", input)
        try e.put("encoding_format", encodingFormat)
        try e.put("dimensions", dimensions)
        try e.extra(extra)
    }
}

/// The embedding list; `base64` vectors are decoded to `[Float]` (little-endian float32).
public struct EmbeddingList: Codable, Sendable, Hashable {
    public var object: String?
    public var data: [Embedding]
    public var model: String?
    public var usage: Usage?
    public var extra: [String: JSONValue]

    public init(
        object: String? = "list", data: [Embedding], model: String? = nil, usage: Usage? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        (self.object, self.data, self.model, self.usage, self.extra) = (object, data, model, usage, extra)
    }

    public struct Embedding: Codable, Sendable, Hashable {
        public var index: Int
        public var vector: [Float]
        public var object: String?
        /// The vector came as base64 (`"encoding_format": "base64"`) and encodes back so.
        public var isBase64: Bool
        public var extra: [String: JSONValue]

        public init(
            index: Int, vector: [Float], object: String? = "embedding", isBase64: Bool = false,
            extra: [String: JSONValue] = [:]
        ) {
            (self.index, self.vector, self.object, self.isBase64, self.extra) = (index, vector, object, isBase64, extra)
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            index = try d.opt("index") ?? 0
            object = try d.opt("object")
            if let text = try? d.opt("embedding", String.self) {
                guard let floats = EmbeddingList.decodeBase64(text) else {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: decoder.codingPath + [AnyKey("embedding")],
                            debugDescription: "not base64 of little-endian float32s"))
                }
                vector = floats
                isBase64 = true
            } else {
                vector = try d.req("embedding")
                isBase64 = false
            }
            extra = try d.extra()
        }

        // The wire form is not the value: a vector sent as floats equals the same sent as base64.
        public static func == (a: Embedding, b: Embedding) -> Bool {
            a.index == b.index && a.vector == b.vector && a.object == b.object && a.extra == b.extra
        }
        public func hash(into h: inout Hasher) {
            h.combine(index)
            h.combine(vector)
            h.combine(object)
            h.combine(extra)
        }

        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("object", object)
            try e.put("index", index)
            if isBase64 {
                try e.put("embedding", EmbeddingList.encodeBase64(vector))
            } else {
                try e.put("embedding", vector)
            }
            try e.extra(extra)
        }
    }

    public struct Usage: Codable, Sendable, Hashable {
        public var promptTokens: Int?
        public var totalTokens: Int?
        public var extra: [String: JSONValue]

        public init(promptTokens: Int? = nil, totalTokens: Int? = nil, extra: [String: JSONValue] = [:]) {
            (self.promptTokens, self.totalTokens, self.extra) = (promptTokens, totalTokens, extra)
        }
        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            promptTokens = try d.opt("prompt_tokens")
            totalTokens = try d.opt("total_tokens")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("prompt_tokens", promptTokens)
            try e.put("total_tokens", totalTokens)
            try e.extra(extra)
        }
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        object = try d.opt("object")
        data = try d.opt("data") ?? []
        model = try d.opt("model")
        usage = try d.opt("usage")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("object", object)
        try e.put("data", data)
        try e.put("model", model)
        try e.put("usage", usage)
        try e.extra(extra)
    }

    /// Floats as base64 of little-endian float32s (the inverse of ``decodeBase64(_:)``).
    public static func encodeBase64(_ vector: [Float]) -> String {
        var bytes = Data(capacity: vector.count * 4)
        for f in vector { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes.base64EncodedString()
    }

    /// Base64 of little-endian float32s to floats; nil when it is not that.
    public static func decodeBase64(_ text: String) -> [Float]? {
        guard let data = Data(base64Encoded: text), data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { i in
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
            }
        }
    }
}

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

    public struct Embedding: Codable, Sendable, Hashable {
        public var index: Int
        public var vector: [Float]

        enum CodingKeys: String, CodingKey { case index, embedding, object }

        public init(index: Int, vector: [Float]) {
            self.index = index
            self.vector = vector
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            index = try c.decodeIfPresent(Int.self, forKey: .index) ?? 0
            if let text = try? c.decode(String.self, forKey: .embedding) {
                guard let floats = EmbeddingList.decodeBase64(text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .embedding, in: c, debugDescription: "not base64 of little-endian float32s")
                }
                vector = floats
            } else {
                vector = try c.decode([Float].self, forKey: .embedding)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("embedding", forKey: .object)
            try c.encode(index, forKey: .index)
            try c.encode(vector, forKey: .embedding)
        }
    }

    public struct Usage: Codable, Sendable, Hashable {
        public var promptTokens: Int?
        public var totalTokens: Int?
        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case totalTokens = "total_tokens"
        }
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

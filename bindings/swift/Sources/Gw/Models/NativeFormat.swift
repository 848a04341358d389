import Foundation

/// POST /v1beta/models/{model}:generateContent (the native format).
public struct GenerateContentRequest: Codable, Sendable, Hashable {
    public var contents: [NativeContent]
    public var tools: [NativeTool]?
    /// `{"temperature", "topP", ...}`.
    public var generationConfig: JSONValue?
    public var extra: [String: JSONValue]

    public init(
        contents: [NativeContent], tools: [NativeTool]? = nil, generationConfig: JSONValue? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.contents = contents
        self.tools = tools
        self.generationConfig = generationConfig
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        contents = try d.req("contents")
        tools = try d.opt("tools")
        generationConfig = try d.opt("generationConfig")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("contents", contents)
        try e.put("tools", tools)
        try e.put("generationConfig", generationConfig)
        try e.extra(extra)
    }
}

/// `{"role": "user" | "model", "parts": [...]}`.
public struct NativeContent: Codable, Sendable, Hashable {
    public var role: String?
    public var parts: [NativePart]
    public var extra: [String: JSONValue]

    public init(role: String?, parts: [NativePart], extra: [String: JSONValue] = [:]) {
        self.role = role
        self.parts = parts
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        role = try d.opt("role")
        parts = try d.opt("parts") ?? []
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("role", role)
        try e.put("parts", parts)
        try e.extra(extra)
    }
    public static func user(_ parts: NativePart...) -> NativeContent { NativeContent(role: "user", parts: parts) }
}

/// One part of native content.
public enum NativePart: Codable, Sendable, Hashable {
    case text(String)
    /// `inline_data`: base64 bytes with their MIME type (e.g. an image to edit).
    case inlineData(mimeType: String, data: String)
    /// `file_data`: a previously uploaded file (e.g. a `video/mp4`).
    case fileData(mimeType: String, fileURI: String)
    /// `functionCall` (answers): the model asks the caller to run `name` with `args`.
    case functionCall(name: String, args: JSONValue)
    /// `functionResponse` (requests): the result of a function call.
    case functionResponse(name: String, response: JSONValue)
    /// Any other part, and a part of a named kind with members its case does not hold (a
    /// `thoughtSignature`, camelCase `inlineData`, a call's `id`): kept whole, so it encodes
    /// back as it came. ``text``, ``inlineData`` and ``functionCall`` read these too.
    case other(JSONValue)

    /// The text of a text part.
    public var text: String? {
        if case .text(let t) = self { return t }
        if case .other(let v) = self { return v["text"]?.stringValue }
        return nil
    }

    /// The MIME type and base64 data of an inline-data part (either spelling).
    public var inlineData: (mimeType: String, data: String)? {
        switch self {
        case .inlineData(let m, let d): return (m, d)
        case .other(let v):
            guard let i = v["inline_data"] ?? v["inlineData"], let d = i["data"]?.stringValue else { return nil }
            return ((i["mime_type"] ?? i["mimeType"])?.stringValue ?? "", d)
        default: return nil
        }
    }

    /// The name and arguments of a function-call part.
    public var functionCall: (name: String, args: JSONValue)? {
        switch self {
        case .functionCall(let n, let a): return (n, a)
        case .other(let v):
            guard let c = v["functionCall"] ?? v["function_call"], let n = c["name"]?.stringValue else { return nil }
            return (n, c["args"] ?? .object([:]))
        default: return nil
        }
    }

    /// `inline_data` from bytes.
    public static func inline(_ data: Data, mimeType: String) -> NativePart {
        .inlineData(mimeType: mimeType, data: data.base64EncodedString())
    }

    public init(from decoder: any Decoder) throws {
        let v = try JSONValue(from: decoder)
        self = Self.parse(v)
        // A typed case only when it encodes back to the same JSON: nothing is dropped.
        if case .other = self {} else if !self.json.sameValue(as: v) { self = .other(v) }
    }

    private static func parse(_ v: JSONValue) -> NativePart {
        if let t = v["text"]?.stringValue {
            return .text(t)
        } else if let i = v["inline_data"] ?? v["inlineData"], let d = i["data"]?.stringValue {
            return .inlineData(mimeType: (i["mime_type"] ?? i["mimeType"])?.stringValue ?? "", data: d)
        } else if let f = v["file_data"] ?? v["fileData"], let u = (f["file_uri"] ?? f["fileUri"])?.stringValue {
            return .fileData(mimeType: (f["mime_type"] ?? f["mimeType"])?.stringValue ?? "", fileURI: u)
        } else if let c = v["functionCall"] ?? v["function_call"], let n = c["name"]?.stringValue {
            return .functionCall(name: n, args: c["args"] ?? .object([:]))
        } else if let r = v["functionResponse"] ?? v["function_response"], let n = r["name"]?.stringValue {
            return .functionResponse(name: n, response: r["response"] ?? .null)
        }
        return .other(v)
    }

    /// The part as JSON, as it is sent.
    var json: JSONValue {
        switch self {
        case .text(let t): return ["text": .string(t)]
        case .inlineData(let m, let d): return ["inline_data": ["mime_type": .string(m), "data": .string(d)]]
        case .fileData(let m, let u): return ["file_data": ["mime_type": .string(m), "file_uri": .string(u)]]
        case .functionCall(let n, let a): return ["functionCall": ["name": .string(n), "args": a]]
        case .functionResponse(let n, let r): return ["functionResponse": ["name": .string(n), "response": r]]
        case .other(let o): return o
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

/// `tools[]`: `{"functionDeclarations": [...]}`.
public struct NativeTool: Codable, Sendable, Hashable {
    public var functionDeclarations: [FunctionDefinition]
    public init(functionDeclarations: [FunctionDefinition]) { self.functionDeclarations = functionDeclarations }
}

/// The native answer: `candidates`.
public struct GenerateContentResponse: Codable, Sendable, Hashable {
    public var candidates: [Candidate]
    public var extra: [String: JSONValue]

    public init(candidates: [Candidate], extra: [String: JSONValue] = [:]) {
        self.candidates = candidates
        self.extra = extra
    }

    public struct Candidate: Codable, Sendable, Hashable {
        public var content: NativeContent?
        public var finishReason: NativeFinishReason?
        public var index: Int?
        /// `safetyRatings`, `citationMetadata`, ... as they came.
        public var extra: [String: JSONValue]

        public init(
            content: NativeContent?, finishReason: NativeFinishReason? = nil, index: Int? = nil,
            extra: [String: JSONValue] = [:]
        ) {
            (self.content, self.finishReason, self.index, self.extra) = (content, finishReason, index, extra)
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            content = try d.opt("content")
            finishReason = try d.opt("finishReason")
            index = try d.opt("index")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("content", content)
            try e.put("finishReason", finishReason)
            try e.put("index", index)
            try e.extra(extra)
        }
    }

    /// The text parts of the first candidate, joined.
    public var text: String? {
        let t = candidates.first?.content?.parts.compactMap(\.text) ?? []
        return t.isEmpty ? nil : t.joined()
    }

    /// The function calls of the first candidate.
    public var functionCalls: [(name: String, args: JSONValue)] {
        candidates.first?.content?.parts.compactMap(\.functionCall) ?? []
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        candidates = try d.opt("candidates") ?? []
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("candidates", candidates)
        try e.extra(extra)
    }
}

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
    public init(role: String?, parts: [NativePart]) {
        self.role = role
        self.parts = parts
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
    case other(JSONValue)

    /// `inline_data` from bytes.
    public static func inline(_ data: Data, mimeType: String) -> NativePart {
        .inlineData(mimeType: mimeType, data: data.base64EncodedString())
    }

    public init(from decoder: any Decoder) throws {
        let v = try JSONValue(from: decoder)
        if let t = v["text"]?.stringValue {
            self = .text(t)
        } else if let i = v["inline_data"] ?? v["inlineData"], let d = i["data"]?.stringValue {
            self = .inlineData(mimeType: (i["mime_type"] ?? i["mimeType"])?.stringValue ?? "", data: d)
        } else if let f = v["file_data"] ?? v["fileData"], let u = (f["file_uri"] ?? f["fileUri"])?.stringValue {
            self = .fileData(mimeType: (f["mime_type"] ?? f["mimeType"])?.stringValue ?? "", fileURI: u)
        } else if let c = v["functionCall"] ?? v["function_call"], let n = c["name"]?.stringValue {
            self = .functionCall(name: n, args: c["args"] ?? .object([:]))
        } else if let r = v["functionResponse"] ?? v["function_response"], let n = r["name"]?.stringValue {
            self = .functionResponse(name: n, response: r["response"] ?? .null)
        } else {
            self = .other(v)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        let v: JSONValue
        switch self {
        case .text(let t): v = ["text": .string(t)]
        case .inlineData(let m, let d): v = ["inline_data": ["mime_type": .string(m), "data": .string(d)]]
        case .fileData(let m, let u): v = ["file_data": ["mime_type": .string(m), "file_uri": .string(u)]]
        case .functionCall(let n, let a): v = ["functionCall": ["name": .string(n), "args": a]]
        case .functionResponse(let n, let r): v = ["functionResponse": ["name": .string(n), "response": r]]
        case .other(let o): v = o
        }
        try v.encode(to: encoder)
    }
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

    public struct Candidate: Codable, Sendable, Hashable {
        public var content: NativeContent?
        public var finishReason: String?
    }

    /// The text parts of the first candidate, joined.
    public var text: String? {
        let t = candidates.first?.content?.parts.compactMap { p -> String? in
            if case .text(let s) = p { return s }
            return nil
        } ?? []
        return t.isEmpty ? nil : t.joined()
    }

    /// The function calls of the first candidate.
    public var functionCalls: [(name: String, args: JSONValue)] {
        candidates.first?.content?.parts.compactMap { p in
            if case .functionCall(let n, let a) = p { return (n, a) }
            return nil
        } ?? []
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

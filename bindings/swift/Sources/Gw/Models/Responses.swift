import Foundation

/// POST /v1/responses (the Responses format).
public struct ResponsesRequest: Codable, Sendable, Hashable {
    public var model: String
    /// A string, or an array of items with `role` and `content`.
    public var input: JSONValue
    public var instructions: String?
    /// E.g. ``ResponsesRequest/webSearch``.
    public var tools: [JSONValue]?
    public var reasoning: Reasoning?
    public var maxOutputTokens: Int?
    public var temperature: Double?
    public var extra: [String: JSONValue]

    /// The web-search tool: `{"type": "web_search_preview"}`.
    public static let webSearch: JSONValue = ["type": "web_search_preview"]

    public init(
        model: String, input: JSONValue, instructions: String? = nil, tools: [JSONValue]? = nil,
        reasoning: Reasoning? = nil, maxOutputTokens: Int? = nil, temperature: Double? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.input = input
        self.instructions = instructions
        self.tools = tools
        self.reasoning = reasoning
        self.maxOutputTokens = maxOutputTokens
        self.temperature = temperature
        self.extra = extra
    }

    /// A text input.
    public init(model: String, input: String, reasoning: Reasoning? = nil, tools: [JSONValue]? = nil) {
        self.init(model: model, input: .string(input), tools: tools, reasoning: reasoning)
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        input = try d.req("input")
        instructions = try d.opt("instructions")
        tools = try d.opt("tools")
        reasoning = try d.opt("reasoning")
        maxOutputTokens = try d.opt("max_output_tokens")
        temperature = try d.opt("temperature")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("input", input)
        try e.put("instructions", instructions)
        try e.put("tools", tools)
        try e.put("reasoning", reasoning)
        try e.put("max_output_tokens", maxOutputTokens)
        try e.put("temperature", temperature)
        try e.extra(extra)
    }
}

/// `reasoning`: `{"effort": "minimal" | "low" | "medium" | "high"}`.
public struct Reasoning: Codable, Sendable, Hashable {
    public var effort: ReasoningEffort?
    public var summary: String?
    public init(effort: ReasoningEffort?, summary: String? = nil) {
        self.effort = effort
        self.summary = summary
    }
}

/// A Responses-format response (`object` `"response"`), also the one a stream ends with.
public struct ModelResponse: Codable, Sendable, Hashable {
    public var id: String?
    public var object: String?
    public var createdAt: Int?
    /// `completed`, `incomplete`, `failed`, ...
    public var status: String?
    public var model: String?
    public var output: [OutputItem]
    public var usage: Usage?
    public var extra: [String: JSONValue]

    /// Every `output_text` of every message item, joined.
    public var outputText: String {
        output.flatMap { $0.content ?? [] }.filter { $0.type == "output_text" }.compactMap(\.text).joined()
    }

    /// One output item: a `message` (with content parts) or a `web_search_call`, ...
    public struct OutputItem: Codable, Sendable, Hashable {
        public var type: String
        public var id: String?
        public var status: String?
        public var role: String?
        public var content: [Part]?
        public var extra: [String: JSONValue]

        public struct Part: Codable, Sendable, Hashable {
            public var type: String
            public var text: String?
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            type = try d.opt("type") ?? ""
            id = try d.opt("id")
            status = try d.opt("status")
            role = try d.opt("role")
            content = try d.opt("content")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("type", type)
            try e.put("id", id)
            try e.put("status", status)
            try e.put("role", role)
            try e.put("content", content)
            try e.extra(extra)
        }
    }

    public struct Usage: Codable, Sendable, Hashable {
        public var inputTokens: Int?
        public var outputTokens: Int?
        public var totalTokens: Int?
        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens"
            case outputTokens = "output_tokens"
            case totalTokens = "total_tokens"
        }
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        id = try d.opt("id")
        object = try d.opt("object")
        createdAt = try d.opt("created_at")
        status = try d.opt("status")
        model = try d.opt("model")
        output = try d.opt("output") ?? []
        usage = try d.opt("usage")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("id", id)
        try e.put("object", object)
        try e.put("created_at", createdAt)
        try e.put("status", status)
        try e.put("model", model)
        try e.put("output", output)
        try e.put("usage", usage)
        try e.extra(extra)
    }
}

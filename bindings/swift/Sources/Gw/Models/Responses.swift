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
    public var status: ResponseStatus?
    public var model: String?
    public var output: [OutputItem]
    public var usage: Usage?
    public var extra: [String: JSONValue]

    public init(
        id: String? = nil, object: String? = "response", createdAt: Int? = nil, status: ResponseStatus? = nil,
        model: String? = nil, output: [OutputItem], usage: Usage? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.id, self.object, self.createdAt, self.status, self.model) = (id, object, createdAt, status, model)
        (self.output, self.usage, self.extra) = (output, usage, extra)
    }

    /// Every `output_text` of every message item, joined.
    public var outputText: String {
        output.flatMap { $0.content ?? [] }.filter { $0.type == "output_text" }.compactMap(\.text).joined()
    }

    /// One output item: a `message` (with content parts) or a `web_search_call`, ...
    public struct OutputItem: Codable, Sendable, Hashable {
        public var type: String
        public var id: String?
        public var status: ResponseStatus?
        public var role: ChatRole?
        public var content: [Part]?
        public var extra: [String: JSONValue]

        public init(
            type: String, id: String? = nil, status: ResponseStatus? = nil, role: ChatRole? = nil,
            content: [Part]? = nil, extra: [String: JSONValue] = [:]
        ) {
            (self.type, self.id, self.status, self.role, self.content, self.extra) = (type, id, status, role, content, extra)
        }

        /// A message text part: `ModelResponse.OutputItem.message("Hi")`.
        public static func message(_ text: String, id: String? = nil) -> OutputItem {
            OutputItem(type: "message", id: id, status: .completed, role: .assistant, content: [Part(type: "output_text", text: text)])
        }

        /// One content part: `output_text` (with its `annotations`, e.g. web-search
        /// `url_citation`s), `refusal`, ...
        public struct Part: Codable, Sendable, Hashable {
            public var type: String
            public var text: String?
            public var annotations: [JSONValue]?
            public var extra: [String: JSONValue]

            public init(type: String, text: String? = nil, annotations: [JSONValue]? = nil, extra: [String: JSONValue] = [:]) {
                (self.type, self.text, self.annotations, self.extra) = (type, text, annotations, extra)
            }

            public init(from decoder: any Decoder) throws {
                var d = try ModelDecoder(decoder)
                type = try d.opt("type") ?? ""
                text = try d.opt("text")
                annotations = try d.opt("annotations")
                extra = try d.extra()
            }
            public func encode(to encoder: any Encoder) throws {
                var e = ModelEncoder(encoder)
                try e.put("type", type)
                try e.put("text", text)
                try e.put("annotations", annotations)
                try e.extra(extra)
            }
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
        /// `input_tokens_details`: e.g. `cached_tokens`.
        public var inputTokensDetails: ChatUsage.Details?
        /// `output_tokens_details`: e.g. `reasoning_tokens`.
        public var outputTokensDetails: ChatUsage.Details?
        public var extra: [String: JSONValue]

        public init(
            inputTokens: Int? = nil, outputTokens: Int? = nil, totalTokens: Int? = nil,
            inputTokensDetails: ChatUsage.Details? = nil, outputTokensDetails: ChatUsage.Details? = nil,
            extra: [String: JSONValue] = [:]
        ) {
            (self.inputTokens, self.outputTokens, self.totalTokens) = (inputTokens, outputTokens, totalTokens)
            (self.inputTokensDetails, self.outputTokensDetails, self.extra) = (inputTokensDetails, outputTokensDetails, extra)
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            inputTokens = try d.opt("input_tokens")
            outputTokens = try d.opt("output_tokens")
            totalTokens = try d.opt("total_tokens")
            inputTokensDetails = try d.opt("input_tokens_details")
            outputTokensDetails = try d.opt("output_tokens_details")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("input_tokens", inputTokens)
            try e.put("output_tokens", outputTokens)
            try e.put("total_tokens", totalTokens)
            try e.put("input_tokens_details", inputTokensDetails)
            try e.put("output_tokens_details", outputTokensDetails)
            try e.extra(extra)
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

/// The `type` of a Responses stream event (its SSE event name).
public enum ResponseEventType: GwStringEnum {
    case created, inProgress, outputItemAdded, outputItemDone, contentPartAdded, contentPartDone
    case outputTextDelta, outputTextDone, completed, incomplete, failed, error
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "response.created": self = .created
        case "response.in_progress": self = .inProgress
        case "response.output_item.added": self = .outputItemAdded
        case "response.output_item.done": self = .outputItemDone
        case "response.content_part.added": self = .contentPartAdded
        case "response.content_part.done": self = .contentPartDone
        case "response.output_text.delta": self = .outputTextDelta
        case "response.output_text.done": self = .outputTextDone
        case "response.completed": self = .completed
        case "response.incomplete": self = .incomplete
        case "response.failed": self = .failed
        case "error": self = .error
        default: self = .unknown(rawValue)
        }
    }
    // A switch, not a lookup by `==`: for a RawRepresentable type `==` may compare rawValues.
    public var rawValue: String {
        switch self {
        case .created: return "response.created"
        case .inProgress: return "response.in_progress"
        case .outputItemAdded: return "response.output_item.added"
        case .outputItemDone: return "response.output_item.done"
        case .contentPartAdded: return "response.content_part.added"
        case .contentPartDone: return "response.content_part.done"
        case .outputTextDelta: return "response.output_text.delta"
        case .outputTextDone: return "response.output_text.done"
        case .completed: return "response.completed"
        case .incomplete: return "response.incomplete"
        case .failed: return "response.failed"
        case .error: return "error"
        case .unknown(let s): return s
        }
    }
}

/// One event of a Responses stream (``GwEvent/responseEvent``): its `type` and the members
/// events of that type carry (`delta` for `response.output_text.delta`, `response` for
/// `response.completed`, `item` for `response.output_item.done`, ...); any other in ``extra``.
public struct ResponseStreamEvent: Codable, Sendable, Hashable {
    public var type: ResponseEventType
    public var sequenceNumber: Int?
    public var delta: String?
    public var text: String?
    public var itemId: String?
    public var outputIndex: Int?
    public var contentIndex: Int?
    public var item: ModelResponse.OutputItem?
    public var part: ModelResponse.OutputItem.Part?
    public var response: ModelResponse?
    public var extra: [String: JSONValue]

    public init(
        type: ResponseEventType, sequenceNumber: Int? = nil, delta: String? = nil, text: String? = nil,
        itemId: String? = nil, outputIndex: Int? = nil, contentIndex: Int? = nil, item: ModelResponse.OutputItem? = nil,
        part: ModelResponse.OutputItem.Part? = nil, response: ModelResponse? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.type, self.sequenceNumber, self.delta, self.text, self.itemId) = (type, sequenceNumber, delta, text, itemId)
        (self.outputIndex, self.contentIndex, self.item, self.part) = (outputIndex, contentIndex, item, part)
        (self.response, self.extra) = (response, extra)
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        type = try d.opt("type") ?? .unknown("")
        sequenceNumber = try d.opt("sequence_number")
        delta = try d.opt("delta")
        text = try d.opt("text")
        itemId = try d.opt("item_id")
        outputIndex = try d.opt("output_index")
        contentIndex = try d.opt("content_index")
        item = try d.opt("item")
        part = try d.opt("part")
        response = try d.opt("response")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("type", type)
        try e.put("sequence_number", sequenceNumber)
        try e.put("delta", delta)
        try e.put("text", text)
        try e.put("item_id", itemId)
        try e.put("output_index", outputIndex)
        try e.put("content_index", contentIndex)
        try e.put("item", item)
        try e.put("part", part)
        try e.put("response", response)
        try e.extra(extra)
    }
}

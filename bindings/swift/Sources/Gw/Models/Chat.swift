import Foundation

/// `reasoning_effort` / `reasoning.effort`: `minimal`, `low`, `medium`, `high` (any other
/// value the gateway learns later too).
public struct ReasoningEffort: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
    public static let minimal: ReasoningEffort = "minimal"
    public static let low: ReasoningEffort = "low"
    public static let medium: ReasoningEffort = "medium"
    public static let high: ReasoningEffort = "high"
}

/// POST /v1/chat/completions. Fields left nil are not sent; ``extra`` members are sent as
/// they are (any field the gateway knows and this type does not name).
public struct ChatRequest: Codable, Sendable, Hashable {
    public var model: String
    public var messages: [ChatMessage]
    public var temperature: Double?
    public var topP: Double?
    public var maxTokens: Int?
    public var maxCompletionTokens: Int?
    /// Choices to generate (n > 1: stream events tell them apart by ``GwEvent/choiceIndex``).
    public var n: Int?
    public var stop: [String]?
    public var seed: Int?
    public var presencePenalty: Double?
    public var frequencyPenalty: Double?
    public var tools: [Tool]?
    /// `"auto"`, `"none"`, `"required"` or `{"type":"function","function":{"name":...}}`.
    public var toolChoice: JSONValue?
    public var parallelToolCalls: Bool?
    public var responseFormat: ResponseFormat?
    public var reasoningEffort: ReasoningEffort?
    /// For streams: `StreamOptions(includeUsage: true)` adds a last chunk with the usage.
    public var streamOptions: StreamOptions?
    public var user: String?
    public var extra: [String: JSONValue]

    public init(
        model: String, messages: [ChatMessage], temperature: Double? = nil, topP: Double? = nil,
        maxTokens: Int? = nil, maxCompletionTokens: Int? = nil, n: Int? = nil, stop: [String]? = nil,
        seed: Int? = nil, presencePenalty: Double? = nil, frequencyPenalty: Double? = nil, tools: [Tool]? = nil,
        toolChoice: JSONValue? = nil, parallelToolCalls: Bool? = nil, responseFormat: ResponseFormat? = nil,
        reasoningEffort: ReasoningEffort? = nil, streamOptions: StreamOptions? = nil, user: String? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.model = model
        self.messages = messages
        self.temperature = temperature
        self.topP = topP
        self.maxTokens = maxTokens
        self.maxCompletionTokens = maxCompletionTokens
        self.n = n
        self.stop = stop
        self.seed = seed
        self.presencePenalty = presencePenalty
        self.frequencyPenalty = frequencyPenalty
        self.tools = tools
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
        self.responseFormat = responseFormat
        self.reasoningEffort = reasoningEffort
        self.streamOptions = streamOptions
        self.user = user
        self.extra = extra
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        model = try d.req("model")
        messages = try d.req("messages")
        temperature = try d.opt("temperature")
        topP = try d.opt("top_p")
        maxTokens = try d.opt("max_tokens")
        maxCompletionTokens = try d.opt("max_completion_tokens")
        n = try d.opt("n")
        stop = try d.opt("stop")
        seed = try d.opt("seed")
        presencePenalty = try d.opt("presence_penalty")
        frequencyPenalty = try d.opt("frequency_penalty")
        tools = try d.opt("tools")
        toolChoice = try d.opt("tool_choice")
        parallelToolCalls = try d.opt("parallel_tool_calls")
        responseFormat = try d.opt("response_format")
        reasoningEffort = try d.opt("reasoning_effort")
        streamOptions = try d.opt("stream_options")
        user = try d.opt("user")
        extra = try d.extra()
    }

    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("model", model)
        try e.put("messages", messages)
        try e.put("temperature", temperature)
        try e.put("top_p", topP)
        try e.put("max_tokens", maxTokens)
        try e.put("max_completion_tokens", maxCompletionTokens)
        try e.put("n", n)
        try e.put("stop", stop)
        try e.put("seed", seed)
        try e.put("presence_penalty", presencePenalty)
        try e.put("frequency_penalty", frequencyPenalty)
        try e.put("tools", tools)
        try e.put("tool_choice", toolChoice)
        try e.put("parallel_tool_calls", parallelToolCalls)
        try e.put("response_format", responseFormat)
        try e.put("reasoning_effort", reasoningEffort)
        try e.put("stream_options", streamOptions)
        try e.put("user", user)
        try e.extra(extra)
    }
}

/// `stream_options`.
public struct StreamOptions: Codable, Sendable, Hashable {
    public var includeUsage: Bool
    public init(includeUsage: Bool) { self.includeUsage = includeUsage }
    enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
}

/// `response_format`: `.text`, `.jsonObject`, or `.jsonSchema(name:schema:strict:)`.
public struct ResponseFormat: Codable, Sendable, Hashable {
    public var type: String
    public var jsonSchema: JSONValue?

    public init(type: String, jsonSchema: JSONValue? = nil) {
        self.type = type
        self.jsonSchema = jsonSchema
    }
    public static let text = ResponseFormat(type: "text")
    public static let jsonObject = ResponseFormat(type: "json_object")
    public static func jsonSchema(name: String, schema: JSONValue, strict: Bool? = nil) -> ResponseFormat {
        var o: [String: JSONValue] = ["name": .string(name), "schema": schema]
        if let strict { o["strict"] = .bool(strict) }
        return ResponseFormat(type: "json_schema", jsonSchema: .object(o))
    }
    enum CodingKeys: String, CodingKey {
        case type
        case jsonSchema = "json_schema"
    }
}

/// A chat message: `system`, `user`, `assistant` or `tool`.
public struct ChatMessage: Codable, Sendable, Hashable {
    public var role: String
    public var content: MessageContent?
    public var name: String?
    /// An assistant's tool calls (answers) or the calls being answered (requests).
    public var toolCalls: [ToolCall]?
    /// A `tool` message: the call it answers.
    public var toolCallId: String?
    /// The chain of thought, when the model sends it (answers only).
    public var reasoningContent: String?
    public var extra: [String: JSONValue]

    public init(
        role: String, content: MessageContent?, name: String? = nil, toolCalls: [ToolCall]? = nil,
        toolCallId: String? = nil, reasoningContent: String? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.role = role
        self.content = content
        self.name = name
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
        self.reasoningContent = reasoningContent
        self.extra = extra
    }

    public static func system(_ text: String) -> ChatMessage { ChatMessage(role: "system", content: .text(text)) }
    public static func user(_ text: String) -> ChatMessage { ChatMessage(role: "user", content: .text(text)) }
    /// A multimodal user message: text, image and video parts.
    public static func user(_ parts: [ContentPart]) -> ChatMessage { ChatMessage(role: "user", content: .parts(parts)) }
    public static func assistant(_ text: String, toolCalls: [ToolCall]? = nil) -> ChatMessage {
        ChatMessage(role: "assistant", content: .text(text), toolCalls: toolCalls)
    }
    /// The result of a tool call, sent back to the model.
    public static func tool(callId: String, content: String) -> ChatMessage {
        ChatMessage(role: "tool", content: .text(content), toolCallId: callId)
    }

    /// The text of the content (its text parts joined, for a multimodal one).
    public var text: String? { content?.text }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        role = try d.opt("role") ?? "assistant"
        content = try d.opt("content")
        name = try d.opt("name")
        toolCalls = try d.opt("tool_calls")
        toolCallId = try d.opt("tool_call_id")
        reasoningContent = try d.opt("reasoning_content")
        extra = try d.extra()
    }

    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("role", role)
        try e.put("content", content)
        try e.put("name", name)
        try e.put("tool_calls", toolCalls)
        try e.put("tool_call_id", toolCallId)
        try e.put("reasoning_content", reasoningContent)
        try e.extra(extra)
    }
}

/// The `delta` of a streamed chat chunk: what the chunk adds to its choice's message. Unlike
/// a ``ChatMessage`` every member is optional: ``role`` is set only in the chunk that carried
/// one (the first), and a delta encodes back exactly the members it came with.
public struct ChatDelta: Codable, Sendable, Hashable {
    public var role: ChatRole?
    public var content: MessageContent?
    /// Tool call fragments: ``ToolCall/index`` tells the calls apart.
    public var toolCalls: [ToolCall]?
    public var reasoningContent: String?
    public var refusal: String?
    public var extra: [String: JSONValue]

    public init(
        role: ChatRole? = nil, content: MessageContent? = nil, toolCalls: [ToolCall]? = nil,
        reasoningContent: String? = nil, refusal: String? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.role, self.content, self.toolCalls) = (role, content, toolCalls)
        (self.reasoningContent, self.refusal, self.extra) = (reasoningContent, refusal, extra)
    }

    /// The text fragment (its text parts joined, for a multimodal one).
    public var text: String? { content?.text }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        role = try d.opt("role")
        content = try d.opt("content")
        toolCalls = try d.opt("tool_calls")
        reasoningContent = try d.opt("reasoning_content")
        refusal = try d.opt("refusal")
        extra = try d.extra()
    }

    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("role", role)
        try e.put("content", content)
        try e.put("tool_calls", toolCalls)
        try e.put("reasoning_content", reasoningContent)
        try e.put("refusal", refusal)
        try e.extra(extra)
    }
}

/// A message's content: a plain string or an array of parts.
public enum MessageContent: Codable, Sendable, Hashable {
    case text(String)
    case parts([ContentPart])

    public var text: String? {
        switch self {
        case .text(let s): return s
        case .parts(let p):
            let texts = p.compactMap(\.text)
            return texts.isEmpty ? nil : texts.joined()
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { self = .text(s) } else { self = .parts(try c.decode([ContentPart].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let s): try c.encode(s)
        case .parts(let p): try c.encode(p)
        }
    }
}

/// One part of a multimodal message.
public enum ContentPart: Codable, Sendable, Hashable {
    case text(String)
    /// An image URL or a base64 `data:` URI; `detail` e.g. `"low"`.
    case imageURL(String, detail: String? = nil)
    /// A video URL or base64 `data:` URI (mp4/mov, at most 50 MB); `fps` 0.2 to 5.
    case videoURL(String, fps: Double? = nil)
    /// Any other part, and a part of a named type with members its case does not hold (a
    /// text part's `annotations`, ...): kept whole, so it encodes back as it came.
    case other(JSONValue)

    /// The text of a text part (an `.other` one too).
    public var text: String? {
        switch self {
        case .text(let t): return t
        case .other(let v) where v["type"] == "text": return v["text"]?.stringValue
        default: return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let v = try JSONValue(from: decoder)
        switch v["type"]?.stringValue {
        case "text" where v["text"]?.stringValue != nil:
            self = .text(v["text"]!.stringValue!)
        case "image_url" where v["image_url"]?["url"]?.stringValue != nil:
            self = .imageURL(v["image_url"]!["url"]!.stringValue!, detail: v["image_url"]?["detail"]?.stringValue)
        case "video_url" where v["video_url"]?["url"]?.stringValue != nil:
            self = .videoURL(v["video_url"]!["url"]!.stringValue!, fps: v["video_url"]?["fps"]?.doubleValue)
        default:
            self = .other(v)
        }
        // A typed case only when it encodes back to the same JSON: nothing is dropped.
        if case .other = self {} else if !self.json.sameValue(as: v) { self = .other(v) }
    }

    /// The part as JSON, as it is sent.
    var json: JSONValue {
        switch self {
        case .text(let t): return ["type": "text", "text": .string(t)]
        case .imageURL(let url, let detail):
            var o: [String: JSONValue] = ["url": .string(url)]
            if let detail { o["detail"] = .string(detail) }
            return ["type": "image_url", "image_url": .object(o)]
        case .videoURL(let url, let fps):
            var o: [String: JSONValue] = ["url": .string(url)]
            if let fps { o["fps"] = .double(fps) }
            return ["type": "video_url", "video_url": .object(o)]
        case .other(let o): return o
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

/// A tool the model may call.
public struct Tool: Codable, Sendable, Hashable {
    public var type: String
    public var function: FunctionDefinition?

    public init(type: String = "function", function: FunctionDefinition?) {
        self.type = type
        self.function = function
    }

    /// A function tool; `parameters` is a JSON schema.
    public static func function(_ name: String, description: String? = nil, parameters: JSONValue? = nil) -> Tool {
        Tool(function: FunctionDefinition(name: name, description: description, parameters: parameters))
    }
}

public struct FunctionDefinition: Codable, Sendable, Hashable {
    public var name: String
    public var description: String?
    public var parameters: JSONValue?
    public init(name: String, description: String? = nil, parameters: JSONValue? = nil) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}

/// A tool call the model asks for.
public struct ToolCall: Codable, Sendable, Hashable {
    public var id: String?
    public var type: String?
    public var function: FunctionCall
    /// Streamed deltas: the call's position (may be missing; gw's assembly copes).
    public var index: Int?
    public var extra: [String: JSONValue]

    public init(
        id: String?, type: String? = "function", function: FunctionCall, index: Int? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.type = type
        self.function = function
        self.index = index
        self.extra = extra
    }

    public struct FunctionCall: Codable, Sendable, Hashable {
        public var name: String?
        /// The arguments as JSON text (decode with `JSONValue(json:)`).
        public var arguments: String?
        public var extra: [String: JSONValue]

        public init(name: String?, arguments: String?, extra: [String: JSONValue] = [:]) {
            self.name = name
            self.arguments = arguments
            self.extra = extra
        }

        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            name = try d.opt("name")
            arguments = try d.opt("arguments")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("name", name)
            try e.put("arguments", arguments)
            try e.extra(extra)
        }
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        id = try d.opt("id")
        type = try d.opt("type")
        // A streamed delta may carry no `function` at all: an empty one then, written back
        // only when it has something.
        function = try d.opt("function") ?? FunctionCall(name: nil, arguments: nil)
        index = try d.opt("index")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("id", id)
        try e.put("type", type)
        let empty = function.name == nil && function.arguments == nil && function.extra.isEmpty
        try e.put("function", empty ? nil : function)
        try e.put("index", index)
        try e.extra(extra)
    }
}

/// A chat completion (`chat.completion`), also the one gw assembles from a stream.
public struct ChatCompletion: Codable, Sendable, Hashable {
    public var id: String?
    public var object: String?
    public var created: Int?
    public var model: String?
    public var choices: [Choice]
    public var usage: ChatUsage?
    public var extra: [String: JSONValue]

    /// The first choice's text.
    public var text: String? { choices.first?.message?.text }

    public init(
        id: String? = nil, object: String? = "chat.completion", created: Int? = nil, model: String? = nil,
        choices: [Choice], usage: ChatUsage? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.id, self.object, self.created, self.model) = (id, object, created, model)
        (self.choices, self.usage, self.extra) = (choices, usage, extra)
    }

    public struct Choice: Codable, Sendable, Hashable {
        public var index: Int
        public var message: ChatMessage?
        public var finishReason: FinishReason?
        public var extra: [String: JSONValue]

        public init(
            index: Int = 0, message: ChatMessage?, finishReason: FinishReason? = nil, extra: [String: JSONValue] = [:]
        ) {
            (self.index, self.message, self.finishReason, self.extra) = (index, message, finishReason, extra)
        }

        public init(from decoder: any Decoder) throws {
            let c = try ChatChoiceCoding<ChatMessage>(decoder, "message")
            (index, message, finishReason, extra) = (c.index, c.message, c.finishReason, c.extra)
        }
        public func encode(to encoder: any Encoder) throws {
            try ChatChoiceCoding(index: index, message: message, finishReason: finishReason, extra: extra)
                .encode(to: encoder, "message")
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try ChatCompletionCoding<Choice>(decoder)
        (id, object, created, model, choices, usage, extra) = (c.id, c.object, c.created, c.model, c.choices, c.usage, c.extra)
    }
    public func encode(to encoder: any Encoder) throws {
        try ChatCompletionCoding(
            id: id, object: object, created: created, model: model, choices: choices, usage: usage, extra: extra
        ).encode(to: encoder)
    }
}

/// Token counts of a chat completion.
public struct ChatUsage: Codable, Sendable, Hashable {
    public var promptTokens: Int?
    public var completionTokens: Int?
    public var totalTokens: Int?
    /// `prompt_tokens_details`: e.g. `cached_tokens` (prompt caching).
    public var promptTokensDetails: Details?
    public var completionTokensDetails: Details?
    public var extra: [String: JSONValue]

    public init(
        promptTokens: Int? = nil, completionTokens: Int? = nil, totalTokens: Int? = nil,
        promptTokensDetails: Details? = nil, completionTokensDetails: Details? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.promptTokens, self.completionTokens, self.totalTokens) = (promptTokens, completionTokens, totalTokens)
        (self.promptTokensDetails, self.completionTokensDetails) = (promptTokensDetails, completionTokensDetails)
        self.extra = extra
    }

    /// The break-down of a token count (`*_tokens_details`); other counts (`audio_tokens`,
    /// `accepted_prediction_tokens`, ...) are in ``extra``.
    public struct Details: Codable, Sendable, Hashable {
        public var reasoningTokens: Int?
        public var cachedTokens: Int?
        public var extra: [String: JSONValue]

        public init(reasoningTokens: Int? = nil, cachedTokens: Int? = nil, extra: [String: JSONValue] = [:]) {
            (self.reasoningTokens, self.cachedTokens, self.extra) = (reasoningTokens, cachedTokens, extra)
        }
        public init(from decoder: any Decoder) throws {
            var d = try ModelDecoder(decoder)
            reasoningTokens = try d.opt("reasoning_tokens")
            cachedTokens = try d.opt("cached_tokens")
            extra = try d.extra()
        }
        public func encode(to encoder: any Encoder) throws {
            var e = ModelEncoder(encoder)
            try e.put("reasoning_tokens", reasoningTokens)
            try e.put("cached_tokens", cachedTokens)
            try e.extra(extra)
        }
    }

    public init(from decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        promptTokens = try d.opt("prompt_tokens")
        completionTokens = try d.opt("completion_tokens")
        totalTokens = try d.opt("total_tokens")
        promptTokensDetails = try d.opt("prompt_tokens_details")
        completionTokensDetails = try d.opt("completion_tokens_details")
        extra = try d.extra()
    }
    public func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("prompt_tokens", promptTokens)
        try e.put("completion_tokens", completionTokens)
        try e.put("total_tokens", totalTokens)
        try e.put("prompt_tokens_details", promptTokensDetails)
        try e.put("completion_tokens_details", completionTokensDetails)
        try e.extra(extra)
    }
}

/// One streamed chat chunk (`chat.completion.chunk`): a chat stream's ``GwEvent/chunk``.
public struct ChatCompletionChunk: Codable, Sendable, Hashable {
    public var id: String?
    public var object: String?
    public var created: Int?
    public var model: String?
    public var choices: [Choice]
    /// The usage chunk (`stream_options.include_usage`): no choices, only this.
    public var usage: ChatUsage?
    public var extra: [String: JSONValue]
    /// The chunk came without `choices` (not even `[]`) and encodes back so.
    var choicesAbsent = false

    public init(
        id: String? = nil, object: String? = "chat.completion.chunk", created: Int? = nil, model: String? = nil,
        choices: [Choice], usage: ChatUsage? = nil, extra: [String: JSONValue] = [:]
    ) {
        (self.id, self.object, self.created, self.model) = (id, object, created, model)
        (self.choices, self.usage, self.extra) = (choices, usage, extra)
    }

    public struct Choice: Codable, Sendable, Hashable {
        public var index: Int
        /// What this chunk adds to the choice's message.
        public var delta: ChatDelta?
        /// nil until the choice's last chunk.
        public var finishReason: FinishReason?
        public var extra: [String: JSONValue]

        public init(
            index: Int = 0, delta: ChatDelta?, finishReason: FinishReason? = nil, extra: [String: JSONValue] = [:]
        ) {
            (self.index, self.delta, self.finishReason, self.extra) = (index, delta, finishReason, extra)
        }

        public init(from decoder: any Decoder) throws {
            let c = try ChatChoiceCoding<ChatDelta>(decoder, "delta")
            (index, delta, finishReason, extra) = (c.index, c.message, c.finishReason, c.extra)
        }
        public func encode(to encoder: any Encoder) throws {
            try ChatChoiceCoding(index: index, message: delta, finishReason: finishReason, extra: extra)
                .encode(to: encoder, "delta")
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try ChatCompletionCoding<Choice>(decoder)
        (id, object, created, model, choices, usage, extra) = (c.id, c.object, c.created, c.model, c.choices, c.usage, c.extra)
        choicesAbsent = c.choicesAbsent
    }
    public func encode(to encoder: any Encoder) throws {
        try ChatCompletionCoding(
            id: id, object: object, created: created, model: model, choices: choices, usage: usage, extra: extra,
            choicesAbsent: choicesAbsent && choices.isEmpty
        ).encode(to: encoder)
    }
}

/// The coding of what ``ChatCompletion`` and ``ChatCompletionChunk`` share (their fields but
/// the choices' type), written once for both.
struct ChatCompletionCoding<Choice: Codable> {
    var id: String?
    var object: String?
    var created: Int?
    var model: String?
    var choices: [Choice]
    var usage: ChatUsage?
    var extra: [String: JSONValue]
    var choicesAbsent = false
}

extension ChatCompletionCoding {
    init(_ decoder: any Decoder) throws {
        var d = try ModelDecoder(decoder)
        id = try d.opt("id")
        object = try d.opt("object")
        created = try d.opt("created")
        model = try d.opt("model")
        let listed: [Choice]? = try d.opt("choices")
        choices = listed ?? []
        choicesAbsent = listed == nil
        usage = try d.opt("usage")
        extra = try d.extra()
    }

    func encode(to encoder: any Encoder) throws {
        var e = ModelEncoder(encoder)
        try e.put("id", id)
        try e.put("object", object)
        try e.put("created", created)
        try e.put("model", model)
        try e.put("choices", choicesAbsent ? nil : choices)
        try e.put("usage", usage)
        try e.extra(extra)
    }
}

/// The coding of a choice of a completion (its message under `message`) and of a chunk
/// (its delta under `delta`), written once for both.
struct ChatChoiceCoding<Message: Codable> {
    var index: Int
    var message: Message?
    var finishReason: FinishReason?
    var extra: [String: JSONValue]
}

extension ChatChoiceCoding {
    init(_ decoder: any Decoder, _ messageKey: String) throws {
        var d = try ModelDecoder(decoder)
        index = try d.opt("index") ?? 0
        message = try d.opt(messageKey)
        finishReason = try d.opt("finish_reason")
        extra = try d.extra()
    }

    func encode(to encoder: any Encoder, _ messageKey: String) throws {
        var e = ModelEncoder(encoder)
        try e.put("index", index)
        try e.put(messageKey, message)
        try e.put("finish_reason", finishReason)
        try e.extra(extra)
    }
}

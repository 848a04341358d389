import Foundation

/// The shape of every string set the API names (roles, finish reasons, statuses): a case per
/// value this binding knows and `unknown(String)` for any other, so a value the gateway
/// learns later decodes, compares and encodes as itself (issue 39). String literals build
/// one (`finishReason == "stop"` still reads as before).
public protocol GwStringEnum: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral,
    CustomStringConvertible
where RawValue == String {
    /// Never fails: a value without a case is `unknown(value)`.
    init(rawValue: String)
}

extension GwStringEnum {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
    public var description: String { rawValue }
}

/// A chat message's `role`.
public enum ChatRole: GwStringEnum {
    case system, user, assistant, tool
    /// Newer roles (`developer`, ...) and any other value, as sent.
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "system": self = .system
        case "user": self = .user
        case "assistant": self = .assistant
        case "tool": self = .tool
        default: self = .unknown(rawValue)
        }
    }
    public var rawValue: String {
        switch self {
        case .system: return "system"
        case .user: return "user"
        case .assistant: return "assistant"
        case .tool: return "tool"
        case .unknown(let s): return s
        }
    }
}

/// A chat choice's `finish_reason`: `stop`, `length`, `tool_calls` (the API document's), and
/// `content_filter`, `function_call` (OpenAI's).
public enum FinishReason: GwStringEnum {
    case stop, length, toolCalls, contentFilter, functionCall
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "stop": self = .stop
        case "length": self = .length
        case "tool_calls": self = .toolCalls
        case "content_filter": self = .contentFilter
        case "function_call": self = .functionCall
        default: self = .unknown(rawValue)
        }
    }
    public var rawValue: String {
        switch self {
        case .stop: return "stop"
        case .length: return "length"
        case .toolCalls: return "tool_calls"
        case .contentFilter: return "content_filter"
        case .functionCall: return "function_call"
        case .unknown(let s): return s
        }
    }
}

/// The `status` of a Responses-format response and of its output items: `completed` (the
/// API document's), `incomplete`, `failed`, `in_progress`, `queued`, `cancelled`.
public enum ResponseStatus: GwStringEnum {
    case completed, incomplete, failed, inProgress, queued, cancelled
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "completed": self = .completed
        case "incomplete": self = .incomplete
        case "failed": self = .failed
        case "in_progress": self = .inProgress
        case "queued": self = .queued
        case "cancelled": self = .cancelled
        default: self = .unknown(rawValue)
        }
    }
    public var rawValue: String {
        switch self {
        case .completed: return "completed"
        case .incomplete: return "incomplete"
        case .failed: return "failed"
        case .inProgress: return "in_progress"
        case .queued: return "queued"
        case .cancelled: return "cancelled"
        case .unknown(let s): return s
        }
    }
}

/// A native candidate's `finishReason`: `STOP` (the API document's), `MAX_TOKENS`, `SAFETY`.
public enum NativeFinishReason: GwStringEnum {
    case stop, maxTokens, safety
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "STOP": self = .stop
        case "MAX_TOKENS": self = .maxTokens
        case "SAFETY": self = .safety
        default: self = .unknown(rawValue)
        }
    }
    public var rawValue: String {
        switch self {
        case .stop: return "STOP"
        case .maxTokens: return "MAX_TOKENS"
        case .safety: return "SAFETY"
        case .unknown(let s): return s
        }
    }
}

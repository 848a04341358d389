import CGw
import Foundation

/// One event of a stream: a chat chunk, or a Responses event.
public struct GwEvent: Sendable, Hashable {
    /// The SSE event name: `"message"` for chat chunks, e.g. `"response.output_text.delta"` for
    /// the Responses format.
    public let name: String
    /// The event's data: a JSON text, as the gateway sent it.
    public let data: Data
    /// The text fragment the event carries (chat `delta.content`, Responses `delta`), if any.
    public let textDelta: String?
    /// 0-based position of the event in the stream.
    public let index: Int
    /// Chat: the choice ``textDelta`` belongs to (n > 1; a chunk carrying text for several
    /// choices comes as one event per choice). 0 for events without a choice.
    public let choiceIndex: Int
    /// The typed forms of ``data``, decoded on first use and kept (copies of the event share
    /// them): a loop that never asks pays one small allocation per event, not a decode.
    private let typed: TypedEvent

    public init(name: String, data: Data, textDelta: String?, index: Int, choiceIndex: Int) {
        self.name = name
        self.data = data
        self.textDelta = textDelta
        self.index = index
        self.choiceIndex = choiceIndex
        typed = TypedEvent()
    }

    /// A chat stream's event of `chunk` (for fakes and previews): its data is the chunk's
    /// JSON, its text the chunk's choice `choiceIndex` content.
    public static func chat(_ chunk: ChatCompletionChunk, index: Int = 0, choiceIndex: Int = 0) -> GwEvent {
        let text = chunk.choices.first { $0.index == choiceIndex }?.delta?.text
        let e = GwEvent(
            name: "message", data: (try? Codec.encode(chunk)) ?? Data(), textDelta: text, index: index,
            choiceIndex: choiceIndex)
        e.typed.set(chunk: chunk)
        return e
    }

    /// A Responses stream's event (for fakes and previews): named by its type, its text the
    /// `delta` of a `response.output_text.delta`.
    public static func response(_ event: ResponseStreamEvent, index: Int = 0) -> GwEvent {
        let e = GwEvent(
            name: event.type.rawValue, data: (try? Codec.encode(event)) ?? Data(),
            textDelta: event.type == .outputTextDelta ? event.delta : nil, index: index, choiceIndex: 0)
        e.typed.set(response: event)
        return e
    }

    /// A chat stream's chunk (tool call deltas, the usage chunk, `finish_reason`); nil for a
    /// Responses event or data that is not a chunk.
    public var chunk: ChatCompletionChunk? { name == "message" ? typed.chunk(data) : nil }

    /// A Responses stream's event (`type`, `delta`, the final `response`, ...); nil for a chat
    /// chunk or data that is not an event object.
    public var responseEvent: ResponseStreamEvent? { name == "message" ? nil : typed.responseEvent(data) }

    /// The data decoded as `T`, e.g. ``ChatCompletionChunk`` or ``JSONValue``.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T { try Codec.decode(T.self, data) }

    /// The data as a ``JSONValue``.
    public var json: JSONValue { (try? JSONValue(data: data)) ?? .null }

    // The typed cache is derived from `data`: equality and hashing leave it out.
    public static func == (a: GwEvent, b: GwEvent) -> Bool {
        a.name == b.name && a.data == b.data && a.textDelta == b.textDelta && a.index == b.index
            && a.choiceIndex == b.choiceIndex
    }
    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(data)
        h.combine(textDelta)
        h.combine(index)
        h.combine(choiceIndex)
    }

    init(_ e: gw_event) {
        name = String(cString: e.event)
        data = Data(bytes: e.data, count: e.data_len)
        textDelta = e.text_delta.map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: e.text_delta_len), as: UTF8.self)
        }
        index = e.index
        choiceIndex = e.choice_index
        typed = TypedEvent()
    }
}

/// An event's typed forms, each decoded at most once (under the lock: events are Sendable
/// and may be read from several tasks).
final class TypedEvent: @unchecked Sendable {
    private let lock = NSLock()
    // Outer nil: not decoded yet; inner nil: the data is not of that type.
    private var chunkValue: ChatCompletionChunk??
    private var responseValue: ResponseStreamEvent??

    func chunk(_ data: Data) -> ChatCompletionChunk? {
        lock.lock()
        defer { lock.unlock() }
        if let done = chunkValue { return done }
        let c = try? JSONDecoder().decode(ChatCompletionChunk.self, from: data)
        chunkValue = .some(c)
        return c
    }

    func responseEvent(_ data: Data) -> ResponseStreamEvent? {
        lock.lock()
        defer { lock.unlock() }
        if let done = responseValue { return done }
        let r = try? JSONDecoder().decode(ResponseStreamEvent.self, from: data)
        responseValue = .some(r)
        return r
    }

    func set(chunk: ChatCompletionChunk) { lock.lock(); chunkValue = .some(chunk); lock.unlock() }
    func set(response: ResponseStreamEvent) { lock.lock(); responseValue = .some(response); lock.unlock() }
}

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

    public init(name: String, data: Data, textDelta: String?, index: Int, choiceIndex: Int) {
        self.name = name
        self.data = data
        self.textDelta = textDelta
        self.index = index
        self.choiceIndex = choiceIndex
    }

    /// The data decoded as `T`, e.g. ``ChatCompletionChunk`` or ``JSONValue``.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T { try Codec.decode(T.self, data) }

    /// The data as a ``JSONValue``.
    public var json: JSONValue { (try? JSONValue(data: data)) ?? .null }

    init(_ e: gw_event) {
        name = String(cString: e.event)
        data = Data(bytes: e.data, count: e.data_len)
        textDelta = e.text_delta.map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: e.text_delta_len), as: UTF8.self)
        }
        index = e.index
        choiceIndex = e.choice_index
    }
}

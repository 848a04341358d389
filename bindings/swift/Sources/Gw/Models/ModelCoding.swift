import Foundation

/// Reads a model's named fields, then gives every other member as `extra`.
struct ModelDecoder {
    let c: KeyedDecodingContainer<AnyKey>
    var seen: Set<String> = []

    init(_ decoder: any Decoder) throws { c = try decoder.container(keyedBy: AnyKey.self) }

    mutating func opt<T: Decodable>(_ key: String, _ type: T.Type = T.self) throws -> T? {
        seen.insert(key)
        return try c.decodeIfPresent(T.self, forKey: AnyKey(key))
    }

    mutating func req<T: Decodable>(_ key: String, _ type: T.Type = T.self) throws -> T {
        seen.insert(key)
        return try c.decode(T.self, forKey: AnyKey(key))
    }

    func extra() throws -> [String: JSONValue] { try c.extra(excluding: seen) }
}

/// Writes a model's named fields (nil ones left out), then its `extra` members (those no
/// named field wrote).
struct ModelEncoder {
    var c: KeyedEncodingContainer<AnyKey>
    var seen: Set<String> = []

    init(_ encoder: any Encoder) { c = encoder.container(keyedBy: AnyKey.self) }

    /// A nil field is left out, so an `extra` member of the same name can stand in for it.
    mutating func put<T: Encodable>(_ key: String, _ value: T?) throws {
        guard let value else { return }
        seen.insert(key)
        try c.encode(value, forKey: AnyKey(key))
    }

    mutating func extra(_ extra: [String: JSONValue]) throws { try c.encodeExtra(extra, excluding: seen) }
}

extension JSONValue {
    /// Equal as JSON values: numbers by value (`1` and `1.0` alike), so a model can tell
    /// whether its typed form gives back exactly what it decoded.
    func sameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.sameValue(as: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { k, v in b[k].map { v.sameValue(as: $0) } ?? false }
        default:
            if let x = doubleValue, let y = other.doubleValue { return x == y }
            return self == other
        }
    }
}

import CGw
import Foundation

/// One gw_client handle (a client's base handle or a call's derived one), freed in deinit.
final class Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { gw_client_free(pointer) }

    /// `gw_client_cancel`: every call on this handle returns GW_CANCELLED promptly.
    func cancel() { gw_client_cancel(pointer) }

    /// A handle sharing this one's pool, with per-call options.
    func derive(_ optionsJSON: String?) throws -> Handle {
        var out: OpaquePointer?
        var err: UnsafeMutablePointer<CChar>?
        let status = try withOptionalCString(optionsJSON, "call options") { json in
            gw_client_create_derived(pointer, json, &out, &err)
        }
        let errText = takeString(err)
        guard status == 0, let handle = out else {
            gw_client_free(out)
            throw GwError(status: status == 0 ? -99 : Int(status), errorJSON: errText, response: nil)
        }
        return Handle(handle)
    }

    /// The metadata of the last exchange finished on this handle.
    func lastResponse() -> GwResponseMeta? {
        var out: UnsafeMutablePointer<CChar>?
        guard gw_client_last_response(pointer, &out) == 0, let text = takeString(out) else { return nil }
        return (try? JSONValue(json: text)).flatMap(GwResponseMeta.init(json:))
    }
}

/// Copies a gw string into Swift and frees it with gw_free. NULL gives nil.
func takeString(_ p: UnsafeMutablePointer<CChar>?) -> String? {
    guard let p else { return nil }
    defer { gw_free(p) }
    return String(cString: p)
}

/// Copies a gw string's bytes into `Data` and frees it with gw_free. NULL gives nil.
func takeData(_ p: UnsafeMutablePointer<CChar>?) -> Data? {
    guard let p else { return nil }
    defer { gw_free(p) }
    return Data(bytes: p, count: strlen(p))
}

// Request bodies reach several MiB (a photo as a base64 data URI), so the NUL check and the
// copy below work on contiguous bytes with memchr and memcpy: Data.contains(0), a generic
// Sequence loop, cost ~50 ms of CPU for 5 MiB in a release build, gw's own work ~2 ms.

/// Whether `bytes` holds a 0 byte.
private func hasNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
    return memchr(base, 0, bytes.count) != nil
}

/// Whether `text`'s UTF-8 holds a 0 byte.
private func hasNUL(_ text: String) -> Bool {
    // A native String is contiguous UTF-8; a bridged one may not be (the slow loop is rare).
    text.utf8.withContiguousStorageIfAvailable { hasNUL(UnsafeRawBufferPointer($0)) } ?? text.utf8.contains(0)
}

/// `bytes` and a NUL after them, as an owned C string; nil when a NUL is inside. The array is
/// left uninitialized and filled by memcpy (zero-filling it first costs a second pass).
private func ownedCString(_ bytes: UnsafeRawBufferPointer) -> [CChar]? {
    if hasNUL(bytes) { return nil }
    return [CChar](unsafeUninitializedCapacity: bytes.count + 1) { dst, initialized in
        if let src = bytes.baseAddress, !bytes.isEmpty { memcpy(dst.baseAddress!, src, bytes.count) }
        dst[bytes.count] = 0
        initialized = bytes.count + 1
    }
}

/// `body` with `text` as a NUL-terminated C string; a NUL inside `text` is refused, naming
/// `field` (C would silently cut the string there).
func withCString<R>(_ text: String, _ field: String, _ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
    if hasNUL(text) { throw GwError.invalidArgument(field, "contains a NUL character") }
    return try text.withCString(body)
}

func withOptionalCString<R>(_ text: String?, _ field: String, _ body: (UnsafePointer<CChar>?) throws -> R) throws -> R {
    guard let text else { return try body(nil) }
    return try withCString(text, field) { try body($0) }
}

/// JSON bytes as a C string (copied, NUL added); a NUL inside is refused, naming `field`.
func withCString<R>(_ data: Data, _ field: String, _ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
    try CText(data, field).bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
}

/// Owned bytes for a C call that runs later on another thread: the request as a C string.
struct CText: Sendable {
    let bytes: [CChar]

    init(_ data: Data, _ field: String) throws {
        guard let b = data.withUnsafeBytes(ownedCString) else {
            throw GwError.invalidArgument(field, "contains a NUL byte")
        }
        bytes = b
    }

    init(_ text: String, _ field: String) throws {
        // nil outside: not contiguous (bridged); nil inside: a NUL.
        if let b = text.utf8.withContiguousStorageIfAvailable({ ownedCString(UnsafeRawBufferPointer($0)) }) {
            guard let b else { throw GwError.invalidArgument(field, "contains a NUL character") }
            bytes = b
        } else {
            if text.utf8.contains(0) { throw GwError.invalidArgument(field, "contains a NUL character") }
            bytes = Array(text.utf8CString)
        }
    }

    func with<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension Optional where Wrapped == CText {
    func with<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .none: return body(nil)
        case .some(let t): return t.with { body($0) }
        }
    }
}

import CGw
import Foundation

// The URLSession transport makes each call's exchange from a method and a path
// (gw_exchange_new): the path of the operation's row in gw's table (src/api/ops.rs), with
// its parameters filled in as gw's own calls fill them (Operation::path_with): each
// percent-encoded so that an id can never reach another path, the same refusals with the
// same names. gw then finds the row by that path and applies its checks and answer rules.

/// Makes a call's exchange on its derived handle: gw's status, the exchange in the second
/// argument, the error JSON in the third (a refused request: nothing is sent).
typealias ExchangeMaker = @Sendable (
    OpaquePointer, UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32

enum ExchangePath {
    /// An exchange of `method` to `path` with `body` (nil for a GET); `flags` as
    /// gw_exchange_new takes them.
    static func maker(_ method: String, _ path: String, _ body: CText?, flags: Int32 = 0) throws -> ExchangeMaker {
        let p = try CText(path, "path")
        return { h, ex, err in
            method.withCString { m in p.with { p in body.with { gw_exchange_new(h, m, p, $0, flags, ex, err) } } }
        }
    }

    /// One path parameter, encoded. `argument` names an empty value (gw names the C
    /// argument), `template` a `.` or `..` (gw names the template's parameter).
    static func segment(_ value: String, argument: String, template: String) throws -> String {
        if value.isEmpty { throw GwError.invalidArgument(argument, "must be a non-empty string") }
        // `.` and `..` survive encoding, and a normalising proxy would take them as a move.
        if value == "." || value == ".." { throw GwError.invalidArgument(template, "must not be '.' or '..'") }
        return encode(value)
    }

    /// A parameter that spans segments (vendor F's `org/model/variant` slugs): each segment
    /// encoded, the `/` kept; no empty, `.` or `..` segment.
    static func segments(_ value: String, argument: String, template: String) throws -> String {
        if value.isEmpty { throw GwError.invalidArgument(argument, "must be a non-empty string") }
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw GwError.invalidArgument(template, "must be segments separated by single '/', without '.' or '..'")
        }
        return parts.map { encode(String($0)) }.joined(separator: "/")
    }

    /// RFC 3986 unreserved characters and `:` `@` as they are, every other byte as `%XX`
    /// (gw's percent_encode_segment).
    static func encode(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for b in value.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The status path of a video task of `family`.
    static func videoStatus(_ family: VideoFamily, _ taskId: String) throws -> String {
        switch family {
        case .unified: return "/v1/video/generations/" + (try segment(taskId, argument: "task_id", template: "id"))
        case .character: return "/v1/videos/" + (try segment(taskId, argument: "task_id", template: "id"))
        case .vendorK: return "/vendorK/v1/videos/" + (try segment(taskId, argument: "task_id", template: "id"))
        case .vendorR: return "/vendorR/task/" + (try segment(taskId, argument: "task_id", template: "taskId"))
        }
    }
}

extension PostOp {
    /// The operation's path in gw's table.
    var path: String {
        switch self {
        case .chat: return "/v1/chat/completions"
        case .responses: return "/v1/responses"
        case .embeddings: return "/v1/embeddings"
        case .imageGenerate: return "/v1/images/generations"
        case .imageEdit: return "/v1/images/edits"
        case .videoCreate: return "/v1/video/create"
        case .videoGenerate: return "/v1/video/generations"
        case .videoCharacter: return "/v1/videos"
        case .vendorKText2Video: return "/vendorK/v1/videos/text2video"
        case .vendorKImage2Video: return "/vendorK/v1/videos/image2video"
        case .vendorKMultiImage2Video: return "/vendorK/v1/videos/multi-image2video"
        case .vendorKEffects: return "/vendorK/video/effects"
        case .vendorKExtend: return "/vendorK/video/extend"
        case .vendorHImageToVideo: return "/vendorH/image-to-video"
        case .vendorMImagine: return "/vendorM/submit/imagine"
        case .vendorIDescribe: return "/vendorI/describe"
        case .vendorIGenerate: return "/vendorI/generate"
        case .vendorITextToImage: return "/vendorI/text-to-image"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

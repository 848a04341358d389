import Foundation

/// What option values look like when printed (`description`, `dump`, `Mirror`): credentials
/// replaced. A key reaches the options by more roads than `apiKey`: an `Authorization` header,
/// an `api_key` in `extra`, a proxy URL with a password.
enum SecretRedaction {
    static let placeholder = "<redacted>"

    /// Header names that carry credentials by convention (case-insensitive parts).
    private static let secretNameParts = ["auth", "key", "token", "secret", "cookie", "password"]

    static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretNameParts.contains { lower.contains($0) }
    }

    static func headers(_ headers: [String: String]) -> [String: String] {
        var out = headers
        for name in headers.keys where isSecretName(name) { out[name] = placeholder }
        return out
    }

    /// `extra` members whose names carry credentials (`api_key`, ...), replaced.
    static func extra(_ extra: [String: JSONValue]) -> [String: JSONValue] {
        var out = extra
        for name in extra.keys where isSecretName(name) { out[name] = .string(placeholder) }
        if case .object(let h)? = extra["headers"] {
            var hidden = h
            for name in h.keys where isSecretName(name) { hidden[name] = .string(placeholder) }
            out["headers"] = .object(hidden)
        }
        return out
    }

    /// A URL with the password of its user info replaced (`http://user:<redacted>@host`).
    static func url(_ text: String?) -> String? {
        guard let text, var parts = URLComponents(string: text), parts.password != nil else { return text }
        parts.password = placeholder
        return parts.string ?? placeholder
    }
}

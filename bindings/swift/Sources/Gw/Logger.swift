import CGw
import Foundation

/// gw's log levels.
public enum GwLogLevel: Int32, Sendable, Comparable {
    case error = 1, warn, info, debug, trace
    public static func < (a: GwLogLevel, b: GwLogLevel) -> Bool { a.rawValue < b.rawValue }
}

extension Gw {
    /// Sets the process-wide logger: one line per request attempt, retry (reason and delay),
    /// redirect, stream end and failure, up to `maxLevel`. The API key never appears in a
    /// line. `handler` is called on the thread of the gw call that logs (one of a client's
    /// threads): keep it quick. `nil` turns logging off.
    public static func setLogger(maxLevel: GwLogLevel = .info, _ handler: (@Sendable (GwLogLevel, String) -> Void)?) {
        guard let handler else {
            gw_set_logger(nil, nil, 0)
            return
        }
        let box = LoggerBox(handler)
        // A call logging right now may still use the previous logger's pointer: boxes are
        // kept for the life of the process (one per setLogger call).
        LoggerBox.keep(box)
        gw_set_logger(logTrampoline, Unmanaged.passUnretained(box).toOpaque(), maxLevel.rawValue)
    }
}

final class LoggerBox: Sendable {
    let handler: @Sendable (GwLogLevel, String) -> Void
    init(_ handler: @escaping @Sendable (GwLogLevel, String) -> Void) { self.handler = handler }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [LoggerBox] = []
    static func keep(_ box: LoggerBox) { lock.locked { kept.append(box) } }
}

private let logTrampoline: gw_log_cb = { level, message, user in
    guard let user else { return }
    let box = Unmanaged<LoggerBox>.fromOpaque(user).takeUnretainedValue()
    box.handler(GwLogLevel(rawValue: level) ?? .trace, String(cString: message))
}

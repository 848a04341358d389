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
    ///
    /// Once this returns, the handler it replaced is never called again and is released
    /// (with what it captures). Called from inside a handler, calls of the replaced one
    /// already under way (that one included) finish first. When `setLogger` calls overlap
    /// (from several threads at once), the handlers they replaced are released by the next
    /// call that runs alone.
    public static func setLogger(maxLevel: GwLogLevel = .info, _ handler: (@Sendable (GwLogLevel, String) -> Void)?) {
        LoggerRegistry.set(handler.map(LoggerBox.init), maxLevel: maxLevel)
    }
}

final class LoggerBox: Sendable {
    let handler: @Sendable (GwLogLevel, String) -> Void
    init(_ handler: @escaping @Sendable (GwLogLevel, String) -> Void) { self.handler = handler }
}

/// The handlers gw may call. gw gets a number as `user_data`, never a pointer: the trampoline
/// looks the number up here and holds the box for the length of its call, so dropping a box
/// from the table can never free one in use (a line gw sends to a handler already dropped
/// is passed over). A replaced handler is dropped once it is sure not to be the one gw has
/// installed, so the installed one never misses a line and boxes never pile up:
///
/// - `gw_set_logger` called from outside a handler returns when the replaced one is not
///   running and is never called again; from inside a handler it returns at once, and the
///   running call keeps its box until it returns (the trampoline's reference).
/// - When `setLogger` calls overlap, which one gw installed last is unknown: every box they
///   set is kept until a `setLogger` that overlapped no other runs, which keeps exactly
///   its own.
enum LoggerRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var boxes: [UInt: LoggerBox] = [:]
    /// The last ticket handed out (tickets are also the boxes' numbers, never 0).
    nonisolated(unsafe) private static var lastTicket: UInt = 0
    /// `set` calls between taking their ticket and finishing.
    nonisolated(unsafe) private static var running = 0

    static func set(_ box: LoggerBox?, maxLevel: GwLogLevel) {
        let (ticket, alone) = lock.locked { () -> (UInt, Bool) in
            lastTicket += 1
            let alone = running == 0
            running += 1
            if let box { boxes[lastTicket] = box }
            return (lastTicket, alone)
        }
        if box != nil {
            gw_set_logger(logTrampoline, UnsafeMutableRawPointer(bitPattern: ticket), maxLevel.rawValue)
        } else {
            gw_set_logger(nil, nil, 0)
        }
        // Released after the lock: what a box captures may do anything when it goes.
        let dropped = lock.locked { () -> [LoggerBox] in
            running -= 1
            // No call ran alongside this one: what it installed is gw's logger now.
            guard alone, lastTicket == ticket else { return [] }
            let old = boxes.filter { $0.key != ticket }.map(\.value)
            boxes = boxes.filter { $0.key == ticket }
            return old
        }
        withExtendedLifetime(dropped) {}
    }

    static func box(_ ticket: UInt) -> LoggerBox? { lock.locked { boxes[ticket] } }
}

private let logTrampoline: gw_log_cb = { level, message, user in
    guard let box = LoggerRegistry.box(UInt(bitPattern: user)) else { return }
    box.handler(GwLogLevel(rawValue: level) ?? .trace, String(cString: message))
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import RouteLog

/// `routelog ls STORE --follow`: after the listing, one line per change the store's
/// writer commits (another process: an app, or `routelog import`), until SIGINT or
/// SIGTERM, which end it with exit code 0.
extension ListCommand {
    /// Prints the changes of `store` (a read-only handle, whose listing was printed)
    /// until a signal ends it; an error of the stream (say, the store's directory was
    /// deleted or moved away) is printed and gives exit code 1.
    static func follow(_ store: RouteStore, json: Bool, units: DistanceUnit, console: Console) throws -> ExitCode {
        // Blocked here, before any thread the following starts (threads inherit the
        // mask), so that the signals wait for sigwait below instead of killing the
        // process; SIGUSR1 is the printing task's way to say the stream ended.
        // A shell starts a background job with SIGINT ignored, and an ignored signal is
        // never pending: the default disposition, blocked, lets sigwait take it.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM, SIGUSR1] {
            signal(number, SIG_DFL)
            sigaddset(&signals, number)
        }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let failure = StateLock<(any Error)?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let changes = store.changes
        Task {
            do {
                for try await change in changes { console.print(line(change, store: store, json: json, units: units)) }
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
            kill(getpid(), SIGUSR1)
        }
        var received: Int32 = 0
        sigwait(&signals, &received)
        if received != SIGUSR1 {
            try? store.close()  // ends the stream: the task prints nothing more
            ended.wait()
            return .success
        }
        ended.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return .success
    }

    /// One change as a line: the kind, the id and, for a route that is there, its
    /// summary as `ls` shows it; with `json`, one JSON object per line.
    static func line(_ change: StoreChange, store: RouteStore, json: Bool, units: DistanceUnit) -> String {
        let (kind, id) = describe(change)
        let summary: RouteSummary?
        switch change {
        case .saved, .edited, .recordingFinished: summary = id.flatMap { try? store.summary($0) }
        default: summary = nil
        }
        if json {
            var fields: [(String, JSON)] = [("change", .string(kind))]
            if let id { fields.append(("id", .integer(Int64(id.rawValue)))) }
            if let summary { fields.append(("route", JSONFields.summary(summary))) }
            return JSON.object(fields).renderedOnOneLine()
        }
        var text = kind + (id.map { " \($0)" } ?? "")
        if let s = summary {
            text += ": " + [Formatting.day(s.startDate) + " " + Formatting.time(s.startDate), Formatting.duration(s.duration),
                            Formatting.distance(s.distance, units), Formatting.count(s.pointCount, "point")].joined(separator: ", ")
            if let name = s.name { text += ", " + TerminalText.quoted(name) }
        }
        return text
    }

    private static func describe(_ change: StoreChange) -> (String, RouteID?) {
        switch change {
        case .saved(let id): return ("saved", id)
        case .deleted(let id): return ("deleted", id)
        case .edited(let id): return ("edited", id)
        case .recordingStarted(let id): return ("recording-started", id)
        case .recordingFlushed(let id): return ("recording-flushed", id)
        case .recordingFinished(let id): return ("recording-finished", id)
        case .recordingDiscarded(let id): return ("recording-discarded", id)
        case .compacted: return ("compacted", nil)
        }
    }
}

extension JSON {
    /// On one line, for JSON Lines output (`ls --follow --json`): the same members in
    /// the same order as ``rendered(indent:)``, without its line breaks.
    func renderedOnOneLine() -> String {
        switch self {
        case .object(let members):
            return "{" + members.map { "\(Self.quoted($0.0)): \($0.1.renderedOnOneLine())" }.joined(separator: ", ") + "}"
        case .array(let elements):
            return "[" + elements.map { $0.renderedOnOneLine() }.joined(separator: ", ") + "]"
        default:
            return rendered()
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A route an export could not read (its record is damaged, or its segment may not be
/// opened): it is in no file, and the rest of the store was exported without it.
public struct UnreadableRoute: Sendable, Equatable {
    /// The route left out.
    public var id: RouteID
    /// Why, with the file and offset of the damage.
    public var error: RouteLogError

    /// A route left out of an export, and why.
    public init(id: RouteID, error: RouteLogError) {
        self.id = id
        self.error = error
    }

    /// Whether `error`, thrown reading one route, is about that route's bytes (damage,
    /// or a segment this process may not open or read) rather than about the process or
    /// the moment (descriptors run out, a file gone in a switch), which fail the export.
    public static func isAboutTheRoute(_ error: RouteLogError) -> Bool {
        switch error.code {
        case .corrupted: return true
        case .io: return error.errno.map { [EACCES, EPERM, EIO].contains($0) } ?? false
        default: return false
        }
    }

    /// Reads route `id` of `store`: nil with `unreadable` noted when its bytes cannot be
    /// read (``isAboutTheRoute(_:)``); every other error (the handle closed, say) is thrown.
    static func read(_ id: RouteID, of store: RouteStore, noting unreadable: inout [UnreadableRoute]) throws -> Route? {
        do {
            return try store.route(id)
        } catch let error as RouteLogError where UnreadableRoute.isAboutTheRoute(error) {
            unreadable.append(UnreadableRoute(id: id, error: located(error, id, store)))
            return nil
        }
    }

    /// `error` with the offset of the route's record when it has none (a segment that
    /// could not be opened or read says which file, not where the route is in it).
    private static func located(_ error: RouteLogError, _ id: RouteID, _ store: RouteStore) -> RouteLogError {
        guard error.offset == nil, let path = error.path,
              let location = store.state.withLock({ s in s.index.routes[id].map(\.location) }),
              store.state.withLock({ $0.segments.segment(location.segment)?.path }) == path else { return error }
        return RouteLogError(error.code, error.message, path: path, offset: location.offset, errno: error.errno, pid: error.pid)
    }
}

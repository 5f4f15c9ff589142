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

    /// Reads route `id` of `store`: nil with `unreadable` noted when its bytes cannot be
    /// read (`.corrupted`, `.io`); every other error (the handle closed, say) is thrown.
    static func read(_ id: RouteID, of store: RouteStore, noting unreadable: inout [UnreadableRoute]) throws -> Route? {
        do {
            return try store.route(id)
        } catch let error as RouteLogError where error.code == .corrupted || error.code == .io {
            unreadable.append(UnreadableRoute(id: id, error: error))
            return nil
        }
    }
}

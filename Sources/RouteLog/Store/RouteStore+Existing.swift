import Foundation

extension RouteStore {
    /// Opens an existing store for reading and writing. Unlike ``init(at:options:)``,
    /// never creates one: a tool that edits stores (the `routelog` CLI) must not leave
    /// an empty store behind a mistyped path.
    ///
    /// ```swift
    /// let store = try RouteStore(existingAt: URL(fileURLWithPath: "Routes.routelog"))
    /// ```
    ///
    /// - Throws: ``RouteLogError`` `.notFound` when there is no directory at `url` or it
    ///   holds no store; `.invalidArgument` when `url` is a file; then whatever
    ///   ``init(at:options:)`` throws (`.locked` naming the writer's pid, ...).
    public convenience init(existingAt url: URL, options: Options = Options()) throws {
        let path = url.standardizedFileURL.path
        switch PosixFileSystem.shared.isDirectory(path) {
        case nil:
            throw RouteLogError(.notFound, "there is no RouteLog store here", path: path)
        case false?:
            throw RouteLogError(.invalidArgument, "this is a file, not a RouteLog store directory; pass the store's directory", path: path)
        case true?:
            guard PosixFileSystem.shared.isDirectory(path + "/" + FormatConstants.manifestName) == false else {
                throw RouteLogError(.notFound, "there is no RouteLog store here (no MANIFEST)", path: path)
            }
        }
        try self.init(at: url, options: options)
    }
}

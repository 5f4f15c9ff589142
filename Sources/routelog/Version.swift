import RouteLog

/// `routelog --version` prints the library's version: the CLI is released with it.
enum RoutelogVersion {
    static let current = RouteLog.version
}

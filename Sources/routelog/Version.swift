/// The one place the CLI's version lives; `routelog --version` prints it.
enum RoutelogVersion {
    static let current = "0.1.0"
}

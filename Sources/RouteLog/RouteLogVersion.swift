/// RouteLog's semantic version: the release this source is, or is being prepared as.
///
/// The one place the version lives. Read it as `RouteLog.version`; `routelog --version`
/// prints it, CHANGELOG.md's newest release heading names it, and the git tag of a
/// release is the same string, which is what an app pins with
/// `.package(url: ..., from: "0.1.0")`. While it is 0.x, a minor release may change the
/// public API or the on-disk format; CHANGELOG.md says so when one does.
public let version = "0.1.0"

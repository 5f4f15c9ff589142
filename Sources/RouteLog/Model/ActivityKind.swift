/// What kind of outing a route was, as the app (or the watch that recorded it) says.
/// Lists filter and group by it; imports fill it from GPX `<type>`, FIT sport and TCX
/// `Sport`.
public enum ActivityKind: Sendable, Hashable, Codable, CustomStringConvertible {
    /// On foot, at walking pace.
    case walk
    /// On foot, running.
    case run
    /// On foot, on trails or in hills.
    case hike
    /// By bicycle.
    case ride
    /// In water.
    case swim
    /// Any other kind the app does not name.
    case other
    /// A kind of the app's own ("kayak", "ski touring"): at most 64 bytes of UTF-8.
    case custom(String)

    /// The kind's name: "walk", "run", ... or the custom name.
    public var name: String {
        switch self {
        case .walk: return "walk"
        case .run: return "run"
        case .hike: return "hike"
        case .ride: return "ride"
        case .swim: return "swim"
        case .other: return "other"
        case .custom(let name): return name
        }
    }

    /// The built-in kind with this name, else a custom one.
    public init(name: String) {
        switch name.lowercased() {
        case "walk": self = .walk
        case "run": self = .run
        case "hike": self = .hike
        case "ride": self = .ride
        case "swim": self = .swim
        case "other": self = .other
        default: self = .custom(name)
        }
    }

    /// The kind's name, as ``name``.
    public var description: String { name }

    /// True for kinds where speed says more than pace (lists show km/h, not min/km).
    public var showsSpeed: Bool { self == .ride }
}

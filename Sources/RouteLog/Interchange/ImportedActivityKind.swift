/// The kind of activity an imported file says a route is, in RouteLog's words.
///
/// FIT's `sport` (session, then sport message, then lap) and TCX's `Sport` attribute map
/// as follows: running / Running → run, walking → walk, hiking → hike, cycling,
/// e_biking / Biking → ride, swimming → swim, generic / Other → other, several
/// sports in one FIT file → custom "multisport", and any other sport → custom with
/// the file's name for it ("stand up paddleboarding").
enum ImportedActivityKind: Equatable, Sendable {
    case walk, run, hike, ride, swim, other
    case custom(String)

    /// "run", or the custom name.
    var name: String {
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

    /// The kind of a TCX `Sport` attribute (the schema allows Running, Biking, Other).
    static func tcx(_ sport: String) -> ImportedActivityKind {
        switch sport {
        case "Running": return .run
        case "Biking": return .ride
        case "Other": return .other
        default: return .custom(sport)
        }
    }
}

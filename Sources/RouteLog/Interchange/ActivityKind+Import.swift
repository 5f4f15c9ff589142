/// The kind of activity an imported file names, in RouteLog's words.
///
/// GPX `<type>` (free text: Garmin Connect writes "running", "cycling", "hiking"), FIT's
/// `sport` (session, then sport message, then lap; its profile names with underscores
/// read as spaces) and TCX's `Sport` attribute (Running, Biking, Other) map as follows:
/// run, running → run; walk, walking → walk; hike, hiking → hike; ride, cycling, biking,
/// e biking, road biking, mountain biking → ride; swim, swimming → swim; generic, other
/// → other. Any other name becomes a custom kind of that name ("stand up
/// paddleboarding"), and a name longer than a kind may be (64 bytes) is not kept.
extension ActivityKind {
    init?(importedName raw: String) {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "_", with: " ")
        guard !name.isEmpty, name.utf8.count <= FormatConstants.maxActivityNameBytes else { return nil }
        switch name.lowercased() {
        case "run", "running": self = .run
        case "walk", "walking": self = .walk
        case "hike", "hiking": self = .hike
        case "ride", "cycling", "biking", "bike", "e biking", "road biking", "mountain biking": self = .ride
        case "swim", "swimming": self = .swim
        case "generic", "other": self = .other
        default: self = .custom(name)
        }
    }
}

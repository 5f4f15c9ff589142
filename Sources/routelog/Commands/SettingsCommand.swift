import Foundation
import RouteLog

/// `routelog settings STORE [--privacy-zone Z]... [--remove-privacy-zone Z]...
/// [--clear-privacy-zones] [--json]`: shows the settings kept in the store, or changes
/// them (one manifest commit) and shows the result.
enum SettingsCommand: Command {
    static let spec = CommandSpec(
        name: "settings",
        summary: "show or change the settings kept in the store: the privacy zones every export applies",
        positionals: [PositionalSpec(name: "STORE")],
        options: [
            OptionSpec(name: "privacy-zone", valueName: "LAT,LON,METRES", help: "keep a privacy zone in the store (repeatable; the store keeps up to 64)",
                       repeatable: true),
            OptionSpec(name: "remove-privacy-zone", valueName: "LAT,LON,METRES",
                       help: "remove a kept privacy zone, given as it is listed (repeatable)", repeatable: true),
            .flag("clear-privacy-zones", "remove every kept privacy zone (before any --privacy-zone is added)"),
            .json,
        ],
        discussion: """
        The zones kept here are applied by dump, export and render (and by the library's
        store-based exports) besides those given on their command line, unless they are
        given --no-stored-zones. Without an option to change something, the settings are
        only shown. A zone given twice is kept once; a store keeps at most 64 zones, and
        more is a usage error (exit code 2) that changes nothing. A change is refused with exit code 3 while another process (an app)
        holds the store for writing.
        """,
        optionsSynopsis: "[--privacy-zone LAT,LON,METRES]... [--remove-privacy-zone LAT,LON,METRES]... [--clear-privacy-zones] [--json]")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let added = try arguments.privacyZones()
        let removed = try arguments.privacyZones("remove-privacy-zone")
        let clear = arguments.has("clear-privacy-zones")
        let settings: StoreSettings
        if added.isEmpty && removed.isEmpty && !clear {
            let store = try StoreAccess.openForReading(arguments)
            settings = try store.settings()
            try store.close()
        } else {
            let store = try StoreAccess.openForWriting(arguments)
            let kept = try store.settings().privacyZones
            if let missing = removed.first(where: { !kept.contains($0) }) {
                throw CLIError.failure("the store keeps no privacy zone \(describe(missing))", path: store.url.path,
                                       todo: "give a zone exactly as 'routelog settings STORE' lists it")
            }
            try store.updateSettings { settings in
                if clear { settings.privacyZones = [] }
                settings.privacyZones.removeAll { removed.contains($0) }
                settings.privacyZones += added.filter { !settings.privacyZones.contains($0) }
                let (count, limit) = (settings.privacyZones.count, StoreSettings.maximumPrivacyZones)
                guard count <= limit else {
                    throw CLIError.usage("the store would keep \(count) privacy zones; at most \(limit) are allowed", spec,
                                         todo: "remove some with --remove-privacy-zone or --clear-privacy-zones first")
                }
            }
            settings = try store.settings()
            try store.close()
        }
        if arguments.has("json") {
            let zones = settings.privacyZones.map { zone in
                JSON.object([("latitude", .number(zone.center.latitude)), ("longitude", .number(zone.center.longitude)),
                             ("radius", .number(zone.radius))])
            }
            console.print(JSON.object([("privacyZones", .array(zones))]).rendered())
            return .success
        }
        if settings.privacyZones.isEmpty {
            console.print("privacy zones: none")
        } else {
            console.print(lines: ["privacy zones:"] + settings.privacyZones.map { "  " + describe($0) })
        }
        return .success
    }

    /// A zone as `--privacy-zone` takes it, so that it can be given back to remove it.
    static func describe(_ zone: PrivacyZone) -> String {
        "\(number(zone.center.latitude)),\(number(zone.center.longitude)),\(number(zone.radius))"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

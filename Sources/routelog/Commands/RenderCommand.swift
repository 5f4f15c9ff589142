import Foundation
import RouteLog

/// `routelog render STORE ID -o FILE.svg`: a picture of one route.
enum RenderCommand: Command {
    static let spec = CommandSpec(
        name: "render",
        summary: "an SVG picture of one route: its figures, the track with distance pins, its elevation and speed",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [.value("output", "FILE.svg", "where to write the picture ('-' for stdout); required", short: "o"), .units] + ExportPrivacy.options,
        discussion: """
        The track is drawn in Web Mercator, north up, on a map whose height follows the
        route's shape. Pins stand every 1, 2, 5, 10, 20, 50 or 100 km (or miles): the
        closest spacing whose labels all stay clear of each other and of the start and
        finish. Figures the route does not have (calories, a duration) are left out. The
        elevation and the speed over the distance are drawn under the map when the route
        has altitudes and times. With --privacy-zone the picture shows what export would.
        Open the file in a browser.
        """,
        optionsSynopsis: "-o FILE.svg [--units km|mi] [--privacy-zone LAT,LON,METRES]...")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw CLIError.usage("missing -o FILE.svg", spec)
        }
        let units = try arguments.units()
        let given = try arguments.privacyZones()
        let store = try StoreAccess.openForReading(arguments)
        let shown = try ExportedRoute.load(id, in: store, zones: ExportPrivacy.zones(given: given, store: store, arguments))
        let svg = RouteSVG(summary: shown.summary, route: shown.route, units: units, calories: shown.calories).render()
        try PictureFile.write(svg, to: output, console: console)
        if output == "-" { return .success }
        console.print("wrote route \(id) to \(TerminalText.quoted(output))")
        return .success
    }
}

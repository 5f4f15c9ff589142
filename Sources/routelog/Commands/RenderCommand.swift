import Foundation
import RouteLog

/// `routelog render STORE ID -o FILE.svg`: a picture of one route.
enum RenderCommand: Command {
    static let spec = CommandSpec(
        name: "render",
        summary: "an SVG picture of one route: the track, start and end, a pin at each km or mile, a scale bar",
        positionals: [PositionalSpec(name: "STORE"), PositionalSpec(name: "ID")],
        options: [.value("output", "FILE.svg", "where to write the picture ('-' for stdout); required", short: "o"), .units],
        discussion: "The track is drawn in Web Mercator, north up. Open the file in a browser.",
        optionsSynopsis: "-o FILE.svg [--units km|mi]")

    static func run(_ arguments: ParsedArguments, console: Console) throws -> ExitCode {
        let id = try arguments.routeIDs(from: 1)[0]
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw CLIError.usage("missing -o FILE.svg", spec)
        }
        let units = try arguments.units()
        let store = try StoreAccess.openForReading(arguments)
        let summary = try store.summary(id)
        let svg = RouteSVG(summary: summary, route: try store.route(id), units: units).render()
        if output == "-" {
            console.writeOut(svg)
            return .success
        }
        let url = URL(fileURLWithPath: output)
        do {
            try Data(svg.utf8).write(to: url, options: .atomic)
        } catch {
            throw CLIError.failure("cannot write the picture", path: url.path,
                                   todo: "check that the directory exists and is writable")
        }
        console.print("wrote route \(id) to \(TerminalText.quoted(output))")
        return .success
    }
}

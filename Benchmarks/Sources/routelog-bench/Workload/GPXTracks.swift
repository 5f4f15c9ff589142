import Foundation
import RouteLog

/// The real tracks in the shared GPX folder, read with RouteLog's own importer, one
/// replay route per file: every track of the file joined in order, each track and
/// segment starting a new segment. Files without timestamps (the importer gives such
/// tracks one synthetic time) and files with fewer than two points are skipped.
enum GPXTracks {
    struct Track {
        var file: String
        var route: Route
    }

    static func load(from directory: URL) -> [Track] {
        GPXImporter.gpxFiles(in: directory).compactMap { url in
            guard let read = try? GPXImporter.read(contentsOf: url), read.report.untimedRoutes == 0,
                  let route = joined(read.routes), route.points.count >= 2
            else { return nil }
            return Track(file: url.lastPathComponent, route: route)
        }
    }

    /// The routes of one file as one route, their boundaries kept as segment starts.
    static func joined(_ routes: [Route]) -> Route? {
        guard var result = routes.first else { return nil }
        result.splits = []
        for route in routes.dropFirst() where !route.points.isEmpty {
            let offset = result.points.count
            result.segmentStarts.append(offset)
            result.segmentStarts += route.segmentStarts.map { $0 + offset }
            result.points += route.points
        }
        return result
    }
}

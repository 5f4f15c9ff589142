import Foundation
import RouteLog

/// The real tracks in the shared GPX folder, read just well enough to replay them:
/// every `<trkpt>` with a `<time>`, its elevation, one segment start per `<trkseg>`.
///
/// Deliberately small and lenient; this is not RouteLog's GPX importer and must not
/// grow into one. Tracks without timestamps, or with fewer than two points, are skipped.
enum GPXTracks {
    struct Track {
        var file: String
        var route: Route
    }

    static func load(from directory: URL) -> [Track] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".gpx") }.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                  let text = String(data: data, encoding: .utf8),
                  let route = parse(text), route.points.count >= 2
            else { return nil }
            return Track(file: name, route: route)
        }
    }

    static func parse(_ text: String) -> Route? {
        var points: [TrackPoint] = []
        var segmentStarts: [Int] = []
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        let isoFraction = ISO8601DateFormatter()
        isoFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]

        for (segmentNumber, segment) in text.components(separatedBy: "<trkseg").dropFirst().enumerated() {
            let body = segment.components(separatedBy: "</trkseg>").first ?? segment
            var segmentFirst = true
            for piece in body.components(separatedBy: "<trkpt").dropFirst() {
                let element = piece.components(separatedBy: "</trkpt>").first ?? piece
                guard let lat = attribute("lat", in: element).flatMap(Double.init),
                      let lon = attribute("lon", in: element).flatMap(Double.init),
                      let timeText = child("time", in: element),
                      let time = isoFraction.date(from: timeText) ?? iso.date(from: timeText)
                else { continue }
                if segmentFirst, segmentNumber > 0, !points.isEmpty { segmentStarts.append(points.count) }
                segmentFirst = false
                points.append(TrackPoint(
                    latitude: lat, longitude: lon, timestamp: time,
                    altitude: child("ele", in: element).flatMap(Double.init),
                    speed: child("speed", in: element).flatMap(Double.init),
                    course: child("course", in: element).flatMap(Double.init)))
            }
        }
        guard !points.isEmpty else { return nil }
        return Route(points: points, segmentStarts: segmentStarts)
    }

    private static func attribute(_ name: String, in element: String) -> String? {
        let head = element.prefix { $0 != ">" }
        for quote in ["\"", "'"] {
            if let r = head.range(of: " \(name)=\(quote)") ?? head.range(of: "\t\(name)=\(quote)")
                ?? head.range(of: "\n\(name)=\(quote)"),
               let end = head[r.upperBound...].firstIndex(of: Character(quote)) {
                return String(head[r.upperBound..<end]).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func child(_ name: String, in element: String) -> String? {
        guard let open = element.range(of: "<\(name)>"),
              let close = element.range(of: "</\(name)>", range: open.upperBound..<element.endIndex)
        else { return nil }
        var value = element[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") { value = String(value.dropFirst(9).dropLast(3)) }
        return value
    }
}

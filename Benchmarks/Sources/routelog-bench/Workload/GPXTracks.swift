import Foundation
import RouteLog

/// The real tracks in the shared GPX folder, read just well enough to replay them:
/// every `<trkpt>` with a `<time>`, its elevation, speed and course, and one segment
/// start per `<trkseg>`.
///
/// Deliberately small and lenient, and fast (a byte scanner, no XML parser, no date
/// formatter): this is not RouteLog's GPX importer and must not grow into one. Tracks
/// without timestamps, or with fewer than two points, are skipped.
enum GPXTracks {
    struct Track {
        var file: String
        var route: Route
    }

    static func load(from directory: URL) -> [Track] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".gpx") }.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                  let route = parse([UInt8](data)), route.points.count >= 2
            else { return nil }
            return Track(file: name, route: route)
        }
    }

    static func parse(_ text: [UInt8]) -> Route? {
        var points: [TrackPoint] = []
        var segmentStarts: [Int] = []
        var position = 0
        let segmentTag = Array("<trkseg".utf8), segmentEnd = Array("</trkseg>".utf8)
        let pointTag = Array("<trkpt".utf8), pointEnd = Array("</trkpt>".utf8)
        while let segment = find(segmentTag, in: text, from: position) {
            let end = find(segmentEnd, in: text, from: segment) ?? text.count
            var cursor = segment, first = true
            while let start = find(pointTag, in: text, from: cursor), start < end {
                let close = find(pointEnd, in: text, from: start).map { Swift.min($0, end) } ?? end
                let element = text[start..<close]
                cursor = close
                guard let lat = attribute("lat", in: element), let lon = attribute("lon", in: element),
                      let time = child("time", in: element).flatMap(parseTime)
                else { continue }
                if first, !points.isEmpty { segmentStarts.append(points.count) }
                first = false
                points.append(TrackPoint(
                    latitude: lat, longitude: lon, timestamp: time,
                    altitude: child("ele", in: element).flatMap(number),
                    speed: child("speed", in: element).flatMap(number),
                    course: child("course", in: element).flatMap(number)))
            }
            position = end
        }
        guard !points.isEmpty else { return nil }
        return Route(points: points, segmentStarts: segmentStarts)
    }

    private static func find(_ needle: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard let firstByte = needle.first, text.count >= needle.count else { return nil }
        var i = start
        let last = text.count - needle.count
        while i <= last {
            if text[i] == firstByte {
                var j = 1
                while j < needle.count, text[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// `name="value"` or `name='value'` inside the element's opening tag.
    private static func attribute(_ name: String, in element: ArraySlice<UInt8>) -> Double? {
        let tagEnd = element.firstIndex(of: UInt8(ascii: ">")) ?? element.endIndex
        let head = Array(element[element.startIndex..<tagEnd])
        let key = Array(" \(name)=".utf8)
        var from = 0
        while let at = find(key, in: head, from: from) {
            let quoteIndex = at + key.count
            guard quoteIndex < head.count else { return nil }
            let quote = head[quoteIndex]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
               let close = head[(quoteIndex + 1)...].firstIndex(of: quote) {
                return number(String(decoding: head[(quoteIndex + 1)..<close], as: UTF8.self))
            }
            from = at + 1
        }
        return nil
    }

    private static func child(_ name: String, in element: ArraySlice<UInt8>) -> String? {
        let body = Array(element)
        guard let open = find(Array("<\(name)>".utf8), in: body, from: 0) else { return nil }
        let start = open + name.utf8.count + 2
        guard let close = find(Array("</\(name)>".utf8), in: body, from: start) else { return nil }
        var value = String(decoding: body[start..<close], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") { value = String(value.dropFirst(9).dropLast(3)) }
        return value
    }

    private static func number(_ text: String) -> Double? {
        Double(text.trimmingCharacters(in: .whitespaces))
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`, as GPX writes times.
    static func parseTime(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard let h = digits(i + 1, 2), let m = digits(i + 4, 2) else { return nil }
            offset = (h * 3_600 + m * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
        }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

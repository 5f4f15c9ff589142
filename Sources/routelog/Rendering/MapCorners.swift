import Foundation

/// Where the scale bar and the north arrow go on the map: each in the corner the track
/// and its marks leave most empty (the scale bar prefers the lower left, the arrow the
/// upper right), so that neither hides the start, the finish or much of the track.
struct MapCorners {
    enum Corner: CaseIterable { case bottomLeft, bottomRight, topLeft, topRight }

    /// The scale bar's area, at its widest, and the arrow's.
    let scaleBox: Box
    let arrowBox: Box
    let scaleCorner: Corner

    static let scaleWidth = 200.0, scaleHeight = 54.0, arrowHalf = 18.0

    init(frame f: (x: Double, y: Double, width: Double, height: Double), track: [(x: Double, y: Double)],
         marks: [(x: Double, y: Double)]) {
        func scaleBox(_ corner: Corner) -> Box {
            let left = corner == .bottomLeft || corner == .topLeft
            let top = corner == .topLeft || corner == .topRight
            let x = left ? f.x + 10 : f.x + f.width - 10 - Self.scaleWidth
            let y = top ? f.y + 6 : f.y + f.height - 6 - Self.scaleHeight
            return Box(minX: x, minY: y, maxX: x + Self.scaleWidth, maxY: y + Self.scaleHeight)
        }
        func arrowBox(_ corner: Corner) -> Box {
            let left = corner == .bottomLeft || corner == .topLeft
            let top = corner == .topLeft || corner == .topRight
            return Box(around: (left ? f.x + 30 : f.x + f.width - 30, top ? f.y + 34 : f.y + f.height - 34), half: Self.arrowHalf)
        }
        // A mark under a corner's furniture costs as much as a long stretch of track.
        func cost(_ box: Box) -> Int {
            let grown = Box(minX: box.minX - 14, minY: box.minY - 14, maxX: box.maxX + 14, maxY: box.maxY + 14)
            return track.filter { Box(around: $0, half: 0).isInside(box) }.count
                + 1000 * marks.filter { Box(around: $0, half: 0).isInside(grown) }.count
        }
        let scaleOrder: [Corner] = [.bottomLeft, .bottomRight, .topLeft, .topRight]
        let scale = scaleOrder.min { cost(scaleBox($0)) < cost(scaleBox($1)) }!
        let arrowOrder: [Corner] = [.topRight, .topLeft, .bottomRight, .bottomLeft].filter { $0 != scale }
        let arrow = arrowOrder.min { cost(arrowBox($0)) < cost(arrowBox($1)) }!
        scaleCorner = scale
        self.scaleBox = scaleBox(scale)
        self.arrowBox = arrowBox(arrow)
    }

    /// Whether the scale bar sits on the right (it is then drawn right-aligned).
    var scaleOnRight: Bool { scaleCorner == .bottomRight || scaleCorner == .topRight }
}

import Foundation

/// An aligned text table: a header row, then rows; text columns left-aligned, number
/// columns right-aligned, two spaces between columns.
struct Table {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    /// Adds a row; every cell is quoted for the terminal (``TerminalText``), so no
    /// value can break the rows or the columns.
    mutating func add(_ row: [String]) { rows.append(row.map(TerminalText.quoted)) }

    func lines() -> [String] {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column -> String in
                let cell = row[column], pad = String(repeating: " ", count: widths[column] - cell.count)
                return alignments[column] == .right ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
    }
}

import CSQLite
import Foundation
import RouteLog

/// The little of SQLite the baselines need: exec, prepared statements, errors that say
/// which call failed. Only this file touches the C API's handles directly.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?

    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw BenchError("sqlite3_open_v2(\(path)): \(message)")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    func close() throws {
        guard let db = handle else { return }
        let rc = sqlite3_close(db)
        guard rc == SQLITE_OK else { throw BenchError("sqlite3_close: \(String(cString: sqlite3_errmsg(db)))") }
        handle = nil
    }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "code \(rc)"
            sqlite3_free(error)
            throw BenchError("sqlite3_exec(\(sql.prefix(60))): \(message)")
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("sqlite3_prepare_v2(\(sql.prefix(60))): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return SQLiteStatement(statement, connection: self)
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement; binding indexes start at 1, column indexes at 0.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(statement, index, value) }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        // SQLITE_TRANSIENT: SQLite copies the bytes before this call returns.
        sqlite3_bind_text(statement, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count),
                                  unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// Steps once; true while there is a row to read.
    @discardableResult
    func step() throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw BenchError("sqlite3_step: \(connection.errorMessage)")
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func optionalDouble(_ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: text)
    }
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }
}

/// An error of the benchmark itself (a baseline failed, bad arguments).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension SQLiteStatement {
    /// A summary from a row of both SQLite layouts' summary queries: id, start date
    /// (read by the caller, as each layout stores it its own way), duration, distance,
    /// calories, point count, bounding box, start and end coordinates, name.
    func summaryRow(startDate: Date) -> RouteSummary {
        RouteSummary(
            id: RouteID(UInt64(int64(0))), startDate: startDate,
            duration: double(2), distance: double(3), calories: double(4), pointCount: Int(int64(5)),
            boundingBox: BoundingBox(southWest: Coordinate(latitude: double(6), longitude: double(7)),
                                     northEast: Coordinate(latitude: double(8), longitude: double(9))),
            startCoordinate: Coordinate(latitude: double(10), longitude: double(11)),
            endCoordinate: Coordinate(latitude: double(12), longitude: double(13)),
            name: string(14))
    }
}

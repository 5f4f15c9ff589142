import Foundation
import RouteLog

/// How commands open a store. Readers never write and work beside a running app;
/// writers open only an existing store (never create one by accident) and are refused
/// with exit code 3 while another process holds it.
enum StoreAccess {
    static func openForReading(_ arguments: ParsedArguments) throws -> RouteStore {
        try RouteStore(at: arguments.storeURL, options: .init(mode: .readOnly))
    }

    /// Compaction stays manual: a CLI edit does exactly what it says and no more.
    static func openForWriting(_ arguments: ParsedArguments) throws -> RouteStore {
        try RouteStore(at: arguments.storeURL, options: .init(mode: .mustExist, durability: .full, compaction: .manual))
    }
}

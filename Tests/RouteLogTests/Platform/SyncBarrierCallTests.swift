import CRouteLogSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// routelog_sync_barrier (CRouteLogSystem): F_BARRIERFSYNC on Darwin, fdatasync here; the
/// call behind the "ordered" durability level.
@Suite struct SyncBarrierCallTests {
    @Test func syncBarrierOrdersWrittenDataAndReportsBadDescriptors() throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent("segment").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        let bytes: [UInt8] = Array("RouteLog".utf8)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
        #expect(routelog_sync_barrier(fd) == 0)
        close(fd)
        #expect(routelog_sync_barrier(fd) == EBADF)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}

import Foundation
import Testing
@testable import RouteLog

/// ``ImportLimits/routesPerFile`` holds for every format, as GPX's does
/// (`GPXImportLimitsTests`): FIT counts the files of a chain with a positioned record,
/// TCX its Activities and Courses with a positioned Trackpoint. The reader stops at the
/// first point of the route past the limit; routes without points are not counted.
/// (A FIT chain of a million one-record files was imported as a million routes.)
@Suite struct ImportRouteLimitTests {
    static var threeRoutes: RouteImportOptions {
        var options = RouteImportOptions()
        options.limits.routesPerFile = 3
        return options
    }

    @Test func aFITChainOfMoreFilesWithPointsThanTheLimitIsRefusedAtTheFirstRecordPastIt() throws {
        let one = FITForge.walk(1).file()
        var settings = FITForge()
        settings.define(local: 0, global: 0, [.init(number: 0, size: 1, baseType: 0)])
        settings.data(local: 0, [2])
        // Files without points are not routes: three routes and many settings files pass.
        let accepted = Array([[UInt8]](repeating: settings.file() + one, count: 3).joined())
            + Array([[UInt8]](repeating: settings.file(), count: 50).joined())
        let result = try FITImporter.read(accepted, options: Self.threeRoutes)
        #expect(result.routes.count == 3 && result.report.filesWithoutPoints == 53)

        let refused = Array([[UInt8]](repeating: one, count: 5).joined())
        let error = try #require(throwsError { try FITImporter.read(refused, options: Self.threeRoutes) })
        #expect(error.code == .invalidArgument)
        #expect(error.message.hasPrefix("FIT refused at byte"), "\(error.message)")
        #expect(error.message.contains("more than 3 chained FIT files with positioned records")
            && error.message.contains("ImportLimits.routesPerFile"), "\(error.message)")
        // The fourth file's record: after three files, its 14-byte header and its definition.
        #expect(error.offset == Int64(3 * one.count + 14 + 27))
    }

    @Test func theFITRouteLimitIsTheDefaultTenThousand() throws {
        let one = FITForge.walk(1).file(headerSize: 12)
        let limit = ImportLimits().routesPerFile
        let chain = Array([[UInt8]](repeating: one, count: limit + 1).joined())
        let error = try #require(throwsError { try FITImporter.read(chain) })
        #expect(error.message.contains("more than 10,000 chained FIT files"), "\(error.message)")
    }

    @Test func tcxOfMoreActivitiesWithPointsThanTheLimitIsRefusedAtTheFirstPointPastIt() throws {
        let activity = "<Activity Sport=\"Running\"><Lap><Track>\(TCXImportStructureTests.point(0))</Track></Lap></Activity>\n"
        let empty = "<Activity Sport=\"Other\"><Lap/></Activity>\n"
        let accepted = TCXImportStructureTests.tcx("<Activities>\n" + String(repeating: empty + activity, count: 3)
            + "</Activities>")
        let result = try TCXImportStructureTests.read(accepted, options: Self.threeRoutes)
        #expect(result.routes.count == 3 && result.report.emptyPathsSkipped == 3)

        let refused = TCXImportStructureTests.tcx("<Activities>\n" + String(repeating: activity, count: 3)
            + "</Activities>\n<Courses>\n<Course><Name>fourth</Name><Track>"
            + TCXImportStructureTests.point(0) + "</Track></Course>\n" + activity + "</Courses>")
        let error = try #require(throwsError { try TCXImportStructureTests.read(refused, options: Self.threeRoutes) })
        #expect(error.code == .invalidArgument)
        // Line 1 is the declaration, 2 the root, 3 <Activities>, 4-6 the three Activities,
        // 7 </Activities>, 8 <Courses>, 9 the Course whose point is the fourth route's first.
        #expect(error.message.hasPrefix("TCX refused at line 9, column"), "\(error.message)")
        #expect(error.message.contains("more than 3 Activities and Courses with points (ImportLimits.routesPerFile)"))
    }
}

import CRouteLogSystem
import Foundation
import Testing
@testable import RouteLog
#if canImport(Glibc)
import Glibc
#endif

/// RouteStore.FileProtection (Platform/FileProtection.swift): the class numbers Darwin's
/// F_SETPROTECTIONCLASS takes, and no effect where there are no protection classes.
@Suite struct FileProtectionClassTests {
    @Test func eachLevelIsItsDataProtectionClass() {
        // PROTECTION_CLASS_A to _D of Darwin's <sys/content_protection.h>.
        #expect(RouteStore.FileProtection.complete.protectionClass == 1)
        #expect(RouteStore.FileProtection.completeUnlessOpen.protectionClass == 2)
        #expect(RouteStore.FileProtection.completeUntilFirstUserAuthentication.protectionClass == 3)
        #expect(RouteStore.FileProtection.none.protectionClass == 4)
    }

    @Test func applyingIsHonestAboutWhetherItTookEffect() throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent("segment").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        for protection in RouteStore.FileProtection.allCases {
            let applied = try protection.apply(toDescriptor: fd, path: path)
            #if canImport(Darwin)
            // On a volume with Data Protection (an iPhone, a Watch) the file now has the class.
            if applied { #expect(routelog_get_protection_class(fd) == protection.protectionClass) }
            #else
            // No protection classes here: nothing happened, and nothing failed.
            #expect(!applied)
            #expect(routelog_get_protection_class(fd) == -ENOTSUP)
            #endif
        }
    }
}

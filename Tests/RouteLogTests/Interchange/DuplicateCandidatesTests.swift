import Foundation
import Testing
@testable import RouteLog

/// A duplicate is looked up among the routes that share its index figures, kept by the
/// index as routes come and go, and each candidate is loaded once: many routes alike in
/// every figure but one point cost a comparison of digests each, not a load.
@Suite struct DuplicateCandidatesTests {
    /// Three points at one start and end, the middle one moved by `variant` stored units.
    static func alike(_ variant: Int, start: Date = Date(timeIntervalSince1970: 1_767_225_600)) -> Route {
        Route(points: [
            TrackPoint(latitude: 47.0, longitude: 8.0, timestamp: start),
            TrackPoint(latitude: 47.0005 + Double(variant) * 1e-7, longitude: 8.0005, timestamp: start.addingTimeInterval(1)),
            TrackPoint(latitude: 47.001, longitude: 8.001, timestamp: start.addingTimeInterval(2)),
        ])
    }

    static func candidates(_ store: RouteStore, like route: Route) throws -> [DuplicateCandidates.Candidate] {
        let positions = try #require(RoutePositions(route))
        let key = try #require(DuplicateCandidates.Key(positions))
        return store.state.withLock { s in s.index.withDuplicateCandidates { $0.candidates(key) } }
    }

    @Test func routesAlikeButOnePointAreEachLoadedOnce() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store(), options: RouteStore.Options(durability: .buffered))
        defer { try? store.close() }
        var ids: [RouteID] = []
        for variant in 0..<200 { ids.append(try store.save(Self.alike(variant))) }
        // Each stored route is found among its 199 look-alikes, and a new variant is not.
        #expect(try store.existingRoute(equalTo: Self.alike(137)) == ids[137])
        #expect(try store.existingRoute(equalTo: Self.alike(1_000)) == nil)
        let listed = try Self.candidates(store, like: Self.alike(0))
        #expect(Set(listed.map(\.id)) == Set(ids))
        // After one lookup that compared them all, every candidate's points are known by
        // their digest: later lookups load only a route whose digest matches.
        #expect(listed.allSatisfy { $0.digest != nil })
        #expect(try store.existingRoute(equalTo: Self.alike(5)) == ids[5])
        #expect(try store.existingRoute(equalTo: Self.alike(2_000)) == nil)
        // A route saved since is a candidate at once, not yet loaded.
        let later = try store.save(Self.alike(500))
        let withLater = try Self.candidates(store, like: Self.alike(0))
        #expect(withLater.count == 201 && withLater.first { $0.id == later }?.digest == nil)
        #expect(try store.existingRoute(equalTo: Self.alike(500)) == later)
    }

    @Test func theCandidatesFollowDeletesAndEditsThatMoveARoute() throws {
        let dir = TemporaryDirectory()
        let store = try RouteStore(at: dir.store())
        defer { try? store.close() }
        let a = try store.save(Self.alike(1)), b = try store.save(Self.alike(2))
        #expect(try store.existingRoute(equalTo: Self.alike(1)) == a)
        try store.delete(a)
        #expect(try store.existingRoute(equalTo: Self.alike(1)) == nil)
        // An edit that moves b an hour later moves its key: found at its new times only.
        _ = try store.edit(b, RouteEdit(shift: 3_600))
        #expect(try store.existingRoute(equalTo: Self.alike(2)) == nil)
        let moved = Self.alike(2, start: Date(timeIntervalSince1970: 1_767_225_600 + 3_600))
        #expect(try store.existingRoute(equalTo: moved) == b)
        // A rename leaves the key as it was.
        _ = try store.edit(b, RouteEdit(name: "Morning"))
        #expect(try store.existingRoute(equalTo: moved) == b)
        #expect(try Self.candidates(store, like: Self.alike(2)).isEmpty)
    }

    @Test func theMapKeepsOneOrManyRoutesAKeyAndTheirDigests() throws {
        func indexed(_ route: Route, shiftMs: Int64 = 0) -> IndexedRoute {
            IndexedRoute(shape: RouteShape(points: route.points, segmentStarts: []),
                         metadata: StoredMetadata(RouteMetadata(), shiftMs: shiftMs),
                         location: RecordLocation(segment: 1, offset: 20, length: 40))
        }
        let same = indexed(Self.alike(1)), other = indexed(Self.alike(1), shiftMs: 1_000)
        let key = DuplicateCandidates.Key(same), otherKey = DuplicateCandidates.Key(other)
        #expect(key != otherKey && key.startMs + 1_000 == otherKey.startMs)
        var map = DuplicateCandidates()
        for id in 1...3 { map.add(RouteID(UInt64(id)), same) }
        map.add(RouteID(9), other)
        #expect(map.candidates(key).map(\.id) == [RouteID(1), RouteID(2), RouteID(3)])
        #expect(map.candidates(otherKey).map(\.id) == [RouteID(9)])
        map.remember([RouteID(2): 77, RouteID(9): 5], key: key)
        #expect(map.candidates(key).map(\.digest) == [nil, 77, nil])
        map.remove(RouteID(1), same)
        map.remove(RouteID(3), same)
        #expect(map.candidates(key) == [DuplicateCandidates.Candidate(id: RouteID(2), digest: 77)])
        map.remove(RouteID(2), same)
        map.remove(RouteID(2), same)  // gone already: nothing happens
        #expect(map.candidates(key).isEmpty && map.candidates(otherKey).map(\.id) == [RouteID(9)])
        map.remove(RouteID(9), other)
        #expect(map.candidates(otherKey).isEmpty)
    }

    @Test func aRouteNoStoredRouteCanEqualHasNoKey() {
        var far = Self.alike(0)
        far.points[1].longitude = 400  // beyond any stored longitude
        #expect(RoutePositions(far).flatMap(DuplicateCandidates.Key.init) == nil)
        #expect(RoutePositions(Route(points: [])) == nil)
    }
}

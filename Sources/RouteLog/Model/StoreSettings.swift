/// Choices kept in the store itself, so that every program that opens it (the app, its
/// extensions, `routelog`) applies them: today the privacy zones that store-based exports
/// apply by default. Read with ``RouteStore/settings()``, changed with
/// ``RouteStore/updateSettings(_:)``; stored in the manifest (format-spec.md, "Manifest").
public struct StoreSettings: Sendable, Equatable {
    /// Zones whose points ``RouteExporter`` and ``ParquetExporter`` leave out at the start
    /// and end of every route exported from this store, besides any zones given to the
    /// call. At most ``maximumPrivacyZones``; ``RouteStore/updateSettings(_:)`` keeps
    /// each zone once (equal zones given again are dropped, the first kept in place).
    public var privacyZones: [PrivacyZone]
    /// Settings a newer RouteLog wrote that this one does not know: kept as they are.
    var unknown: [(tag: UInt8, value: [UInt8])] = []
    /// Not a choice but the writer's own note, kept here because it travels with the
    /// settings into every manifest (a backup's too): ids that may have lost a record
    /// to damage, whose records the index has no trace of compaction keeps
    /// (format-spec.md, "Manifest"). nil in a store where no damage was ever noted.
    /// Not compared by `==`, and out of reach of ``RouteStore/updateSettings(_:)``.
    var lostIDs: LostIDs?

    /// The most privacy zones a store keeps.
    public static let maximumPrivacyZones = 64

    /// Settings with the given zones (none by default).
    public init(privacyZones: [PrivacyZone] = []) {
        self.privacyZones = privacyZones
    }

    /// Equal when the zones and the kept unknown settings are equal, in order.
    public static func == (a: StoreSettings, b: StoreSettings) -> Bool {
        a.privacyZones == b.privacyZones && a.unknown.elementsEqual(b.unknown) { $0.tag == $1.tag && $0.value == $1.value }
    }

    /// The settings as a store keeps them: each privacy zone once, in the order first given.
    func withoutRepeatedZones() -> StoreSettings {
        var seen = Set<PrivacyZone>()
        var copy = self
        copy.privacyZones = privacyZones.filter { seen.insert($0).inserted }
        return copy
    }

    /// Throws `.invalidArgument` when the settings cannot be stored.
    func validate() throws {
        guard privacyZones.count <= Self.maximumPrivacyZones else {
            throw RouteLogError.invalid("a store keeps at most \(Self.maximumPrivacyZones) privacy zones, not \(privacyZones.count)")
        }
    }

    private enum Tag: UInt8 { case privacyZone = 1, lostIDs = 2 }

    /// The settings as the manifest stores them (`setting*`).
    func write(to w: inout ByteWriter) {
        for zone in privacyZones {
            w.u8(Tag.privacyZone.rawValue)
            w.u32(24)
            w.f64(zone.center.latitude)
            w.f64(zone.center.longitude)
            w.f64(zone.radius)
        }
        if let lostIDs {
            w.u8(Tag.lostIDs.rawValue)
            w.u32(UInt32(16 * lostIDs.ranges.count))
            lostIDs.write(to: &w)
        }
        for setting in unknown {
            w.u8(setting.tag)
            w.u32(UInt32(setting.value.count))
            for byte in setting.value { w.u8(byte) }
        }
    }

    /// Reads `setting*` up to the end of `r`.
    /// - Throws: ``ByteReader/Malformed`` for a setting that runs past the end or a zone
    ///   out of range.
    init(from r: inout ByteReader) throws {
        self.init()
        while r.remaining > 0 {
            let tag = try r.u8()
            let length = Int(try r.u32())
            guard length <= r.remaining else { throw r.fail("setting \(tag) runs \(length) bytes past the record's end") }
            let bytes = try r.bytes(length)
            var value = ByteReader(bytes)
            switch Tag(rawValue: tag) {
            case .privacyZone:
                guard length == 24, privacyZones.count < Self.maximumPrivacyZones else {
                    throw r.fail("privacy zone setting of \(length) bytes, or more than \(Self.maximumPrivacyZones) zones")
                }
                let center = Coordinate(latitude: try value.f64(), longitude: try value.f64())
                guard let zone = try? PrivacyZone(center: center, radius: try value.f64()) else {
                    throw r.fail("a privacy zone out of range")
                }
                privacyZones.append(zone)
            case .lostIDs:
                guard lostIDs == nil else { throw r.fail("lost ids given twice") }
                do {
                    lostIDs = try LostIDs(from: &value)
                } catch let error as ByteReader.Malformed {
                    throw r.fail(error.reason)
                }
            case nil:
                unknown.append((tag, Array(bytes)))
            }
        }
    }
}

extension RouteTable {
    /// How the table keeps a route's metadata in memory: as stored (format-spec.md,
    /// "Segment records": metadata), except that a zero time shift (nearly every route:
    /// only an edit that moves a route in time sets one) is left out and the flags
    /// byte's ``MetadataLayout/zeroShiftLeftOut`` stands for it. That is 8 bytes a route
    /// less, and the stored bytes come back exactly (``stored(_:)``), so an index written
    /// from the table holds what it read. ``MetadataView/init(checked:)`` reads both forms.
    enum MetadataForm {
        private static let shiftEnd = 9  // the flags byte, then the 8-byte shift

        /// Appends stored metadata `stored` (checked: it holds at least the flags and the
        /// shift) to `bytes` in the table's form.
        static func append(stored: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
            guard stored.count >= shiftEnd, stored.i64(at: 1) == 0 else {
                bytes.append(contentsOf: stored)
                return
            }
            bytes.append(stored[0] | MetadataLayout.zeroShiftLeftOut)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: stored[shiftEnd...]))
        }

        /// The time shift of the metadata in the table's form at `start` of `raw`.
        static func shiftMs(_ raw: UnsafeRawBufferPointer, at start: Int) -> Int64 {
            raw[start] & MetadataLayout.zeroShiftLeftOut != 0 ? 0 : raw.i64(at: start + 1)
        }

        /// The stored bytes of metadata in the table's form.
        static func stored(_ form: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            guard let flags = form.first, flags & MetadataLayout.zeroShiftLeftOut != 0 else { return form }
            var bytes = [UInt8]()
            bytes.reserveCapacity(form.count + shiftEnd - 1)
            bytes.append(flags & ~MetadataLayout.zeroShiftLeftOut)
            bytes.append(contentsOf: repeatElement(0, count: shiftEnd - 1))
            bytes.append(contentsOf: form.dropFirst())
            return bytes[...]
        }
    }
}

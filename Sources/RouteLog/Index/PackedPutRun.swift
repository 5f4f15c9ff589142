/// An IndexPutRun's puts made into the rows of a ``RouteTable`` ahead of time, on the
/// thread that reads a large index ahead (``ScanAhead``): the thread that opens the
/// index then only looks each id up and appends its row, and the two threads share the
/// work of an open instead of one waiting on the other.
///
/// The puts are read and checked as ``IndexPutRun/withPuts(in:everyRule:_:)`` reads and
/// checks them: ``rows`` are those read right, in order, and ``failure`` the rule the
/// next one broke (nil when every put was right and the run ends where it should).
/// ``RouteIndex/applyPackedRun(_:order:)`` applies them exactly as
/// ``RouteIndex/applyPutRun(_:order:)`` applies the payload.
struct PackedPutRun: Sendable {
    /// One row a put read right, its metadata start counted from the start of ``metadata``.
    private(set) var rows: [RouteTable.Row] = []
    /// The puts' metadata in the table's form (``RouteTable/MetadataForm``), one after another.
    private(set) var metadata: [UInt8] = []
    /// The location and shape of each wide row (``RouteTable/Row``), by its place in ``rows``.
    private(set) var wide: [Int: (location: RecordLocation, shape: RouteShape)] = [:]
    /// The rule broken by the put after ``rows``, if one was.
    private(set) var failure: ByteReader.Malformed?

    /// Reads and checks a run's payload. Its allocations are bounded by the payload: a
    /// row (80 bytes) is smaller than an entry (88), a metadata's form is at most its
    /// stored bytes, and a wide row's location and shape, kept beside it as well, take
    /// about twice its entry; so at most about three times the payload.
    init(_ payload: ArraySlice<UInt8>) {
        if let count = IndexPutRun.entryCount(payload), count <= payload.count / IndexPutRun.entrySize {
            rows.reserveCapacity(count)
            metadata.reserveCapacity(payload.count - IndexPutRun.headSize - count * IndexPutRun.entrySize)
        }
        do {
            try IndexPutRun.withPuts(in: payload) { puts in
                while try puts.next() {
                    let put = puts.put, start = metadata.count
                    RouteTable.MetadataForm.append(stored: put.metadata, to: &metadata)
                    let row = RouteTable.Row(id: put.id, location: put.location, shape: put.shape, metadataStart: start,
                                             metadataCount: metadata.count - start, hasExtras: false)
                    if row.isWide { wide[rows.count] = (put.location, put.shape) }
                    rows.append(row)
                }
            }
        } catch {
            // The reader throws nothing else.
            failure = error as? ByteReader.Malformed ?? ByteReader.Malformed(reason: "\(error)", offset: 0)
        }
    }

    /// The location of row `index`.
    func location(_ index: Int) -> RecordLocation {
        rows[index].isWide ? wide[index]!.location : rows[index].packedLocation
    }

    /// The shape of row `index`.
    func shape(_ index: Int) -> RouteShape {
        rows[index].isWide ? wide[index]!.shape : rows[index].packedShape
    }

    /// Row `index`'s metadata as stored.
    func storedMetadata(_ index: Int) -> ArraySlice<UInt8> {
        let row = rows[index]
        return RouteTable.MetadataForm.stored(metadata[row.metadataStart..<(row.metadataStart + row.metadataCount)])
    }
}

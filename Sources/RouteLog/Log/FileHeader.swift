/// The 20-byte header at the start of every store file (format-spec.md, "File header").
struct FileHeader: Equatable {
    let kind: FormatConstants.FileKind
    let version: UInt16
    let fileNumber: UInt32

    init(kind: FormatConstants.FileKind, fileNumber: UInt32, version: UInt16 = FormatConstants.version) {
        self.kind = kind
        self.version = version
        self.fileNumber = fileNumber
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: FormatConstants.fileHeaderSize)
        w.append(contentsOf: FormatConstants.fileMagic)
        w.u8(kind.rawValue)
        w.u8(0)
        w.u16(version)
        w.u32(fileNumber)
        w.u32(Checksum.masked(w.bytes, 0..<16))
        return w.bytes
    }

    /// Parses and checks a header. Throws `unsupportedVersion` for a newer version,
    /// `corrupted` for anything else that is wrong.
    static func decode(_ bytes: [UInt8], path: String, expecting kind: FormatConstants.FileKind) throws -> FileHeader {
        guard bytes.count >= FormatConstants.fileHeaderSize else {
            throw RouteLogError.corrupted("the file is \(bytes.count) bytes, shorter than a RouteLog file header", path: path, offset: 0)
        }
        guard Array(bytes[0..<8]) == FormatConstants.fileMagic else {
            throw RouteLogError.corrupted("not a RouteLog file (its first bytes are not \"RouteLog\")", path: path, offset: 0)
        }
        var r = ByteReader(bytes, from: 8, to: FormatConstants.fileHeaderSize)
        let rawKind = try r.u8(), flags = try r.u8(), version = try r.u16(), number = try r.u32(), stored = try r.u32()
        guard stored == Checksum.masked(bytes, 0..<16) else {
            throw RouteLogError.corrupted("the file header fails its checksum", path: path, offset: 0)
        }
        guard version <= FormatConstants.version else {
            throw RouteLogError(.unsupportedVersion,
                                "the store was written by RouteLog format version \(version); this library reads versions up to \(FormatConstants.version): open it with a newer RouteLog",
                                path: path)
        }
        guard version >= 1, flags == 0, rawKind == kind.rawValue else {
            throw RouteLogError.corrupted("the file header says kind \(rawKind), flags \(flags), version \(version); expected a \(kind) file", path: path, offset: 8)
        }
        return FileHeader(kind: kind, fileNumber: number, version: version)
    }
}

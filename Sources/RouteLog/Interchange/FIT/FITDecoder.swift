import Foundation

/// What the decoder hands its messages to: one FIT file of a chain at a time.
protocol FITMessageConsumer {
    /// A FIT file of the chain begins.
    mutating func fileStarted(_ header: FITFileHeader)
    /// One data message, in file order.
    /// - Throws: ``FITDecodingProblem`` to refuse the whole file (the decoder adds where).
    mutating func consume(_ message: FITMessage) throws
    /// The FIT file's CRC was read (and matched, or was allowed not to).
    mutating func fileEnded()
}

/// Decodes FIT files (one, or several chained back to back) as a stream of data
/// messages, checking every length against the bytes really there before reading.
///
/// Memory is bounded: 16 local definitions, one message's bytes, and the input's
/// 64 KiB chunk. Time is linear in the file's size. The first problem stops decoding
/// with ``RouteLogError/Code/invalidArgument`` naming the byte offset; since the caller
/// builds nothing until decoding succeeds, a bad file gives nothing at all.
struct FITDecoder {
    let source: String
    private var input: FITByteSource
    /// Whether CRC mismatches are recorded in ``ignoredCRCMismatches`` instead of thrown.
    let ignoresBadCRC: Bool
    /// One line per header or file CRC that did not match, when ``ignoresBadCRC``.
    private(set) var ignoredCRCMismatches: [String] = []
    /// Mismatches past the first ``listedCRCMismatches``, counted but not described: a
    /// chain of a million small files with bad CRCs would otherwise keep a million
    /// descriptions (memory grows with the points kept, never with the file).
    private(set) var unlistedCRCMismatches = 0
    static let listedCRCMismatches = 16
    /// FIT files read so far (more than one in a chain).
    private(set) var fileCount = 0

    init(_ input: FITByteSource, source: String, ignoresBadCRC: Bool) {
        self.input = input
        self.source = source
        self.ignoresBadCRC = ignoresBadCRC
    }

    /// Decodes the whole input into `consumer`.
    /// - Throws: ``RouteLogError`` `.invalidArgument` with the offset of the first problem.
    mutating func decode<Consumer: FITMessageConsumer>(into consumer: inout Consumer) throws {
        guard input.length > 0 else { throw fail("the file is empty", at: 0) }
        do {
            repeat {
                try decodeFile(into: &consumer)
            } while input.remaining > 0
        } catch is FITByteSource.ShortRead {
            throw fail("the file ended while it was being read (it changed or shrank)", at: input.offset)
        }
    }

    private mutating func decodeFile<Consumer: FITMessageConsumer>(into consumer: inout Consumer) throws {
        let start = input.offset
        input.crc = FITCRC()
        let header = try readHeader()
        let dataEnd = input.offset + Int64(header.dataSize)
        guard dataEnd + 2 <= input.length else {
            throw fail("the header says \(header.dataSize) bytes of records and a 2-byte CRC follow it, but "
                + "only \(input.length - input.offset) bytes remain: the file is truncated", at: start + 4)
        }
        fileCount += 1
        consumer.fileStarted(header)
        var definitions = [FITDefinition?](repeating: nil, count: 16)
        var lastTimestamp: UInt32?
        while input.offset < dataEnd {
            let recordStart = input.offset
            let recordHeader = FITRecordHeader(try input.takeByte())
            switch recordHeader {
            case .definition(let local, let hasDeveloperFields):
                definitions[local] = try readDefinition(hasDeveloperFields, dataEnd: dataEnd, at: recordStart)
            case .data(let local), .compressedTimestamp(let local, _):
                guard let definition = definitions[local] else {
                    throw fail("a data message uses local message type \(local), which no definition "
                        + "message has defined", at: recordStart)
                }
                try need(definition.messageSize, before: dataEnd, for: "a data message of local type \(local) "
                    + "(global message \(definition.globalNumber))", at: recordStart)
                var message = FITMessage(definition: definition, bytes: try input.take(definition.messageSize))
                if case .compressedTimestamp(_, let timeOffset) = recordHeader {
                    guard let last = lastTimestamp else {
                        throw fail("a compressed-timestamp header comes before any message with a full timestamp",
                                   at: recordStart)
                    }
                    guard let time = FITRecordHeader.timestamp(offset: timeOffset, after: last) else {
                        throw fail("a compressed-timestamp header's offset \(timeOffset) after the timestamp "
                            + "\(Self.hex(last)) would pass 0xFFFFFFFE, the last time FIT can write: the file is damaged",
                                   at: recordStart)
                    }
                    message.timestamp = time
                } else {
                    message.timestamp = message.unsigned(FITMessage.timestampField)
                }
                if let time = message.timestamp { lastTimestamp = time }
                do {
                    try consumer.consume(message)
                } catch let problem as FITDecodingProblem {
                    throw fail(problem.text, at: recordStart, refused: problem.isLimit)
                }
            }
        }
        let computed = input.crc.value
        let stored = try input.take(2)
        let storedCRC = UInt16(stored[0]) | UInt16(stored[1]) << 8
        if storedCRC != computed {
            try mismatch("the file CRC is \(Self.hex(storedCRC)) but the bytes give \(Self.hex(computed)): "
                + "the file is damaged", at: dataEnd)
        }
        consumer.fileEnded()
    }

    private mutating func readHeader() throws -> FITFileHeader {
        let start = input.offset
        let chained = start > 0
        let size = Int(try input.takeByte())
        guard size >= FITFileHeader.minimumSize, input.remaining >= Int64(size - 1) else {
            if chained {
                throw fail("\(input.remaining + 1) byte(s) follow the end of a FIT file but are not another FIT file",
                           at: start)
            }
            throw fail(size < FITFileHeader.minimumSize
                ? "the header size is \(size); a FIT header is 12 or 14 bytes"
                : "the file ends inside its \(size)-byte header", at: start)
        }
        let bytes = [UInt8(size)] + (try input.take(size - 1))
        if let problem = FITFileHeader.problem(bytes) {
            throw fail(chained ? "bytes after the end of a FIT file are not another FIT file (\(problem))" : problem,
                       at: start)
        }
        let header = FITFileHeader(bytes)
        if let stored = header.storedCRC, !header.crcMatches {
            try mismatch("the header CRC is \(Self.hex(stored)) but its first 12 bytes give "
                + "\(Self.hex(header.computedCRC)): the header is damaged", at: start + 12)
        }
        return header
    }

    private mutating func readDefinition(_ hasDeveloperFields: Bool, dataEnd: Int64, at start: Int64) throws -> FITDefinition {
        try need(FITDefinition.fixedSize, before: dataEnd, for: "a definition message", at: start)
        let fixed: (bigEndian: Bool, global: UInt16, fieldCount: Int)
        switch FITDefinition.fixedPart(try input.take(FITDefinition.fixedSize)) {
        case .success(let part): fixed = part
        case .failure(let problem): throw fail(problem.text, at: start)
        }
        try need(3 * fixed.fieldCount, before: dataEnd, for: "a definition of \(fixed.fieldCount) fields", at: start)
        let fields: [FITFieldDefinition]
        do {
            fields = try FITDefinition.fields(try input.take(3 * fixed.fieldCount))
        } catch let problem as FITDecodingProblem {
            throw fail("definition of global message \(fixed.global): \(problem.text)", at: start)
        }
        var developerCount = 0, developerSize = 0
        if hasDeveloperFields {
            try need(1, before: dataEnd, for: "a definition's developer field count", at: start)
            developerCount = Int(try input.takeByte())
            try need(3 * developerCount, before: dataEnd, for: "\(developerCount) developer field definitions", at: start)
            developerSize = FITDefinition.developerDataSize(try input.take(3 * developerCount))
        }
        return FITDefinition(globalNumber: fixed.global, bigEndian: fixed.bigEndian, fields: fields,
                             developerFieldCount: developerCount, developerDataSize: developerSize)
    }

    /// Throws unless `count` more bytes lie before the end of the file's records.
    private func need(_ count: Int, before dataEnd: Int64, for what: String, at start: Int64) throws {
        let left = dataEnd - input.offset
        guard Int64(count) <= left else {
            throw fail("\(what) needs \(count) more byte(s) but the records end \(left) byte(s) later "
                + "(a length runs past the end, or the file is truncated)", at: start)
        }
    }

    private mutating func mismatch(_ what: String, at offset: Int64) throws {
        guard ignoresBadCRC else {
            throw RouteLogError(.invalidArgument, "Bad FIT CRC at byte \(offset): \(what); nothing from this file was "
                + "imported (import it anyway with --ignore-crc, or RouteImportOptions.importsDespiteBadCRC, "
                + "when every record still decodes)", path: source, offset: offset)
        }
        guard ignoredCRCMismatches.count < Self.listedCRCMismatches else {
            unlistedCRCMismatches += 1
            return
        }
        ignoredCRCMismatches.append("\(what) (at byte \(offset))")
    }

    /// The error for a problem at `offset`: a malformed file, or with `refused` a limit
    /// of ``ImportLimits`` passed.
    private func fail(_ what: String, at offset: Int64, refused: Bool = false) -> RouteLogError {
        RouteLogError(.invalidArgument, (refused ? "FIT refused" : "Malformed FIT")
                          + " at byte \(offset): \(what); nothing from this file was imported",
                      path: source, offset: offset)
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// "0xFFFFFFFE": a 32-bit value as the FIT protocol description writes it.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

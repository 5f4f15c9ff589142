/// One leaf column of a Parquet table: its path, physical type, whether it may be null,
/// and its annotations.
struct ParquetColumn {
    var path: [String]
    var type: ParquetFormat.PhysicalType
    var repetition: ParquetFormat.Repetition
    var typeLength: Int32? = nil
    var logicalType: ParquetLogicalType? = nil
    var convertedType: ParquetFormat.ConvertedType? = nil

    var isOptional: Bool { repetition == .optional }

    static func required(_ name: String, _ type: ParquetFormat.PhysicalType) -> ParquetColumn {
        ParquetColumn(path: [name], type: type, repetition: .required)
    }

    static func optional(_ name: String, _ type: ParquetFormat.PhysicalType) -> ParquetColumn {
        ParquetColumn(path: [name], type: type, repetition: .optional)
    }

    /// An INT64 TIMESTAMP(MILLIS, isAdjustedToUTC=true), with TIMESTAMP_MILLIS for
    /// readers that predate logical types.
    static func timestamp(_ name: String) -> ParquetColumn {
        ParquetColumn(path: [name], type: .int64, repetition: .required,
                      logicalType: .timestampMillisUTC, convertedType: .timestampMillis)
    }

    /// A nullable UTF-8 string (STRING, converted type UTF8).
    static func string(_ name: String) -> ParquetColumn {
        ParquetColumn(path: [name], type: .byteArray, repetition: .optional, logicalType: .string,
                      convertedType: .utf8)
    }

    /// A nullable UUID: FIXED_LEN_BYTE_ARRAY(16), the 16 bytes in RFC 4122 order.
    static func uuid(_ name: String) -> ParquetColumn {
        ParquetColumn(path: [name], type: .fixedLengthByteArray, repetition: .optional, typeLength: 16,
                      logicalType: .uuid)
    }

    func inGroup(_ group: String) -> ParquetColumn {
        var column = self
        column.path = [group] + path
        return column
    }

    var schemaElement: ParquetSchemaElement {
        ParquetSchemaElement(name: path[path.count - 1], type: type, typeLength: typeLength, repetition: repetition,
                             convertedType: convertedType, logicalType: logicalType)
    }
}

/// A table's schema: top-level columns and required groups of columns (a struct), in
/// order. Flattened depth first into the footer's schema list, root first.
struct ParquetSchema {
    enum Field {
        case column(ParquetColumn)
        /// A required group (a struct) of flat columns.
        case group(String, [ParquetColumn])
    }

    let fields: [Field]

    /// The leaf columns in schema order: the order of each row group's column chunks.
    var leaves: [ParquetColumn] {
        fields.flatMap { field -> [ParquetColumn] in
            switch field {
            case let .column(column): return [column]
            case let .group(name, columns): return columns.map { $0.inGroup(name) }
            }
        }
    }

    var elements: [ParquetSchemaElement] {
        var elements = [ParquetSchemaElement(name: "schema", numChildren: Int32(fields.count))]
        for field in fields {
            switch field {
            case let .column(column): elements.append(column.schemaElement)
            case let .group(name, columns):
                elements.append(ParquetSchemaElement(name: name, repetition: .required, numChildren: Int32(columns.count)))
                elements += columns.map(\.schemaElement)
            }
        }
        return elements
    }
}

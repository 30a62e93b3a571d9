/// Reads tables of a FlatBuffers file (the serialisation TFLite models use) from its bytes, every offset
/// checked: a damaged file is a typed error naming the byte where it went wrong, never a crash.
///
/// A table starts with a signed offset back to its vtable, whose 16-bit entries give each field's offset
/// in the table (0: absent, the default applies); references to tables, vectors and strings are unsigned
/// offsets from where they are stored. All integers are little-endian. Nothing in the file says how long
/// it should be, so a reference past its end is malformed, whether the file was cut short or damaged.
struct FlatBuffer {
    let path: String
    let bytes: [UInt8]

    /// The root table, whose offset the file starts with.
    func root() throws(ModelError) -> Table {
        try table(at: try reference(at: 0))
    }

    /// Where the unsigned offset stored at `position` points, checked to lie in the file.
    func reference(at position: Int) throws(ModelError) -> Int {
        let target = position + Int(try integer(at: position, as: UInt32.self))
        guard target < bytes.count else { throw pastTheEnd(position, target) }
        return target
    }

    /// The error for something at `position` that extends to `end`, past the file's end.
    func pastTheEnd(_ position: Int, _ end: Int) -> ModelError {
        .malformed(
            path: path, offset: position,
            reason: "refers to byte \(end), past the end of the file (\(bytes.count) bytes): cut short or damaged")
    }

    /// The little-endian integer of type `T` at `offset`.
    func integer<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) throws(ModelError) -> T {
        let size = MemoryLayout<T>.size
        guard offset >= 0 else {
            throw .malformed(path: path, offset: 0, reason: "an offset points before the file's start")
        }
        guard offset <= bytes.count - size else { throw pastTheEnd(offset, offset + size) }
        var value: T = 0
        for index in (0..<size).reversed() { value = value << 8 | T(truncatingIfNeeded: bytes[offset + index]) }
        return value
    }

    /// The table at `position`, its vtable checked.
    func table(at position: Int) throws(ModelError) -> Table {
        let vtable = position - Int(try integer(at: position, as: Int32.self))
        guard vtable >= 0, vtable <= bytes.count - 4 else {
            throw .malformed(
                path: path, offset: position,
                reason: "its field list at byte \(vtable) lies outside the file (\(bytes.count) bytes)")
        }
        let vtableSize = Int(try integer(at: vtable, as: UInt16.self))
        guard vtableSize >= 4, vtableSize % 2 == 0, vtable + vtableSize <= bytes.count else {
            throw .malformed(
                path: path, offset: vtable, reason: "a table's field list of \(vtableSize) bytes does not fit")
        }
        return Table(buffer: self, position: position, vtable: vtable, fieldCount: (vtableSize - 4) / 2)
    }

    /// One table: its fields by number, as the schema declares them.
    struct Table {
        let buffer: FlatBuffer
        let position: Int
        let vtable: Int
        let fieldCount: Int

        /// Where field `id` is stored, or nil when it is absent.
        func field(_ id: Int) throws(ModelError) -> Int? {
            guard id < fieldCount else { return nil }
            let offset = Int(try buffer.integer(at: vtable + 4 + 2 * id, as: UInt16.self))
            return offset == 0 ? nil : position + offset
        }

        /// A scalar field, or `defaultValue` when absent.
        func scalar<T: FixedWidthInteger>(_ id: Int, default defaultValue: T) throws(ModelError) -> T {
            guard let at = try field(id) else { return defaultValue }
            return try buffer.integer(at: at, as: T.self)
        }

        /// Where a referenced table, vector or string starts.
        private func target(_ id: Int) throws(ModelError) -> Int? {
            guard let at = try field(id) else { return nil }
            return try buffer.reference(at: at)
        }

        /// A table field.
        func table(_ id: Int) throws(ModelError) -> Table? {
            guard let at = try target(id) else { return nil }
            return try buffer.table(at: at)
        }

        /// A vector field's first element and count, checked to fit `elementSize`-byte elements.
        func vector(_ id: Int, elementSize: Int) throws(ModelError) -> (start: Int, count: Int)? {
            guard let at = try target(id) else { return nil }
            let count = Int(try buffer.integer(at: at, as: UInt32.self))
            guard count <= (buffer.bytes.count - at - 4) / elementSize else {
                throw buffer.pastTheEnd(at, at + 4 + count * elementSize)
            }
            return (at + 4, count)
        }

        /// A vector of tables (empty when absent).
        func tables(_ id: Int) throws(ModelError) -> [Table] {
            guard let (start, count) = try vector(id, elementSize: 4) else { return [] }
            var tables: [Table] = []
            for index in 0..<count {
                tables.append(try buffer.table(at: try buffer.reference(at: start + 4 * index)))
            }
            return tables
        }

        /// A vector of integers (empty when absent).
        func integers<T: FixedWidthInteger>(_ id: Int, as type: T.Type = T.self) throws(ModelError) -> [T] {
            guard let (start, count) = try vector(id, elementSize: MemoryLayout<T>.size) else { return [] }
            var values: [T] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                values.append(try buffer.integer(at: start + index * MemoryLayout<T>.size, as: T.self))
            }
            return values
        }

        /// A vector of bytes (empty when absent).
        func bytes(_ id: Int) throws(ModelError) -> ArraySlice<UInt8> {
            guard let (start, count) = try vector(id, elementSize: 1) else { return [] }
            return buffer.bytes[start..<start + count]
        }

        /// A string field (empty when absent).
        func string(_ id: Int) throws(ModelError) -> String {
            String(decoding: try bytes(id), as: UTF8.self)
        }
    }
}

/// Small PyTorch checkpoints written opcode by opcode the way `torch.save` writes a state dict (pickle
/// protocol 2), in the legacy container and the zip one, for the reader's tests and for models made to fail.
public struct CheckpointBuilder: Sendable {
    public struct Storage: Sendable {
        public let key: String
        /// `FloatStorage` or `LongStorage`.
        public let type: String
        public let values: [Float]

        public init(key: String, type: String, values: [Float]) {
            self.key = key
            self.type = type
            self.values = values
        }
    }

    public struct Entry: Sendable {
        public let name: String
        public let storage: String
        public let offset: Int
        public let shape: [Int]
        public let strides: [Int]

        public init(name: String, storage: String, offset: Int, shape: [Int], strides: [Int]) {
            self.name = name
            self.storage = storage
            self.offset = offset
            self.shape = shape
            self.strides = strides
        }
    }

    public var storages: [Storage]
    public var entries: [Entry]
    /// What the zip container's `version` entry holds.
    public var version = "3\n"

    public init(storages: [Storage], entries: [Entry]) {
        self.storages = storages
        self.entries = entries
    }

    /// Each named tensor (its shape and values, row-major) in a storage of its own.
    public init(tensors: [(name: String, shape: [Int], values: [Float])]) {
        storages = tensors.enumerated().map {
            Storage(key: String($0.offset), type: "FloatStorage", values: $0.element.values)
        }
        entries = tensors.enumerated().map { index, tensor in
            let strides = tensor.shape.indices.map { tensor.shape[($0 + 1)...].reduce(1, *) }
            return Entry(name: tensor.name, storage: String(index), offset: 0, shape: tensor.shape, strides: strides)
        }
    }

    /// The state dict's pickle, from PROTO to STOP.
    public var statePickle: [UInt8] {
        var p = Pickle()
        p.proto()
        p.global("collections", "OrderedDict")
        p.op(")")
        p.op("R")
        p.op("(")
        for entry in entries {
            guard let storage = storages.first(where: { $0.key == entry.storage }) else { continue }
            p.string(entry.name)
            p.global("torch._utils", "_rebuild_tensor_v2")
            p.op("(")
            p.op("(")
            p.string("storage")
            p.global("torch", storage.type)
            p.string(storage.key)
            p.string("cpu")
            p.int(storage.values.count)
            p.op("N")
            p.op("t")
            p.op("Q")
            p.int(entry.offset)
            p.tuple(entry.shape)
            p.tuple(entry.strides)
            p.bytes([0x89])  // NEWFALSE: requires_grad
            p.global("collections", "OrderedDict")
            p.op(")")
            p.op("R")
            p.op("t")
            p.op("R")
        }
        p.op("u")
        p.op("}")  // BUILD with the attributes torch keeps (`_metadata`), here none
        p.op("b")
        p.op(".")
        return p.bytes
    }

    /// The legacy container: ``legacyHeader``, the state dict, the storage keys, then each storage's count
    /// and values.
    public var legacy: [UInt8] {
        var keys = Pickle()
        keys.proto()
        keys.op("]")
        keys.op("(")
        for storage in storages { keys.string(storage.key) }
        keys.op("e")
        keys.op(".")
        var file = Self.legacyHeader + statePickle + keys.bytes
        for storage in storages {
            file += Self.littleEndian(UInt64(storage.values.count)) + Self.data(of: storage)
        }
        return file
    }

    /// What comes before the state dict in the legacy container: the magic number, the protocol version
    /// and the system information, each pickled.
    public static var legacyHeader: [UInt8] {
        var magic = Pickle()
        magic.proto()
        magic.bytes([0x8A, 10, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19])
        magic.op(".")
        var version = Pickle()
        version.proto()
        version.int(1001)
        version.op(".")
        var information = Pickle()
        information.proto()
        information.op("}")
        information.op("(")
        information.string("protocol_version")
        information.int(1001)
        information.string("little_endian")
        information.bytes([0x88])
        information.op("u")
        information.op(".")
        return magic.bytes + version.bytes + information.bytes
    }

    /// The zip container: `archive/data.pkl`, `archive/data/<key>` and `archive/version`, stored.
    public var zip: [UInt8] {
        let files =
            [("archive/data.pkl", statePickle)] + storages.map { ("archive/data/\($0.key)", Self.data(of: $0)) }
            + [("archive/version", Array(version.utf8))]
        var archive: [UInt8] = [], directory: [UInt8] = []
        for (name, data) in files {
            let offset = archive.count, name = Array(name.utf8)
            let sizes = Self.littleEndian(UInt32(data.count)) + Self.littleEndian(UInt32(data.count))
            archive += [0x50, 0x4B, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + sizes
            archive += Self.littleEndian(UInt16(name.count)) + [0, 0] + name + data
            directory += [0x50, 0x4B, 0x01, 0x02, 20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] + sizes
            directory += Self.littleEndian(UInt16(name.count)) + [UInt8](repeating: 0, count: 12)
            directory += Self.littleEndian(UInt32(offset)) + name
        }
        let count = Self.littleEndian(UInt16(files.count))
        return archive + directory + [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0] + count + count
            + Self.littleEndian(UInt32(directory.count)) + Self.littleEndian(UInt32(archive.count)) + [0, 0]
    }

    static func data(of storage: Storage) -> [UInt8] {
        storage.values.flatMap {
            storage.type == "LongStorage" ? littleEndian(UInt64(bitPattern: Int64($0))) : littleEndian($0.bitPattern)
        }
    }

    public static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Pickle opcodes, appended.
    public struct Pickle {
        public var bytes: [UInt8] = []

        public init() {}

        public mutating func bytes(_ raw: [UInt8]) { bytes += raw }
        public mutating func op(_ code: Character) { bytes.append(code.asciiValue ?? 0) }
        public mutating func proto() { bytes += [0x80, 2] }

        public mutating func string(_ text: String) {
            op("X")
            bytes += CheckpointBuilder.littleEndian(UInt32(text.utf8.count)) + Array(text.utf8)
        }

        public mutating func global(_ module: String, _ name: String) {
            op("c")
            bytes += Array("\(module)\n\(name)\n".utf8)
        }

        public mutating func int(_ value: Int) {
            if value < 256 {
                bytes += [UInt8(ascii: "K"), UInt8(value)]
            } else {
                op("J")
                bytes += CheckpointBuilder.littleEndian(Int32(value))
            }
        }

        public mutating func tuple(_ values: [Int]) {
            op("(")
            for value in values { int(value) }
            op("t")
        }
    }
}

import Foundation

/// A PyTorch state dict as `torch.save(model.state_dict(), …)` writes it (`.pth`, `.pt`): named tensors,
/// read as float. Both containers are read: the zip one (`<name>/data.pkl` and a file per storage in
/// `<name>/data/`) and the legacy one (a magic number, a protocol version and system information pickled
/// one after another, then the state dict's pickle, the list of its storages' keys and each storage's
/// element count and bytes). The pickles go through `RestrictedUnpickler`: nothing in the file is run.
public struct PyTorchCheckpoint: Sendable {
    /// A tensor's shape (outermost dimension first) and its values in row-major order.
    public struct Tensor: Sendable {
        public let shape: [Int]
        public let values: [Float]
        /// Where in the file the tensor is defined, for errors about it.
        public let offset: Int
    }

    public let path: String
    /// The tensors' names, in the file's order.
    public let names: [String]
    private let tensors: [String: Tensor]

    /// The legacy format's first pickle: PyTorch's magic number 0x1950a86a20f9469cfc6c, little-endian.
    static let legacyMagic: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]
    /// The most values one tensor may hold (a gigabyte of floats).
    static let maximumCount = 1 << 28

    /// Reads the checkpoint at `path`; a missing file's error names `setup`, the command that fetches it.
    public init(contentsOf path: String, setup: String = ModelCache.setupCommand) throws(ModelError) {
        try self.init(path: path, bytes: try ModelCache.contents(of: path, setup: setup))
    }

    /// Reads a checkpoint from its bytes; `path` names it in errors.
    public init(path: String, bytes: [UInt8]) throws(ModelError) {
        self.path = path
        guard !bytes.isEmpty else { throw .truncated(path: path, offset: 0, needed: 1) }
        let entries: [(name: String, tensor: PickleTensor)], storages: [String: Range<Int>]
        if StoredZipArchive.isZip(bytes) {
            let archive = try StoredZipArchive(path: path, bytes: bytes)
            guard let pickleName = archive.entries.keys.filter({ $0.hasSuffix("/data.pkl") }).min(),
                let pickle = archive.entries[pickleName]
            else { throw .malformed(path: path, offset: 0, reason: "a zip archive without data.pkl") }
            let archiveFolder = pickleName.dropLast("data.pkl".count)
            try Self.requireKnownVersion(archive.entries[archiveFolder + "version"], path: path, bytes: bytes)
            let folder = archiveFolder + "data/"
            var reader = ModelBytes(path: path, bytes: bytes, range: pickle)
            entries = try Self.entries(of: try RestrictedUnpickler.load(&reader), reader)
            storages = archive.entries.reduce(into: [:]) { storages, entry in
                if entry.key.hasPrefix(folder) { storages[String(entry.key.dropFirst(folder.count))] = entry.value }
            }
        } else {
            var reader = ModelBytes(path: path, bytes: bytes)
            guard case .largeInt(let magic) = try RestrictedUnpickler.load(&reader), magic == Self.legacyMagic else {
                throw .malformed(path: path, offset: 0, reason: "neither a zip archive nor PyTorch's legacy format")
            }
            let versionStart = reader.offset
            guard case .int(1001) = try RestrictedUnpickler.load(&reader) else {
                throw reader.malformed("legacy protocol version is not 1001", at: versionStart)
            }
            let informationStart = reader.offset
            guard case .dict(let information) = try RestrictedUnpickler.load(&reader),
                information.contains(where: { pair in
                    if case .string("little_endian") = pair.key, case .bool(true) = pair.value { return true }
                    return false
                })
            else { throw reader.malformed("the system information does not say little-endian", at: informationStart) }
            let dictionaryStart = reader.offset
            entries = try Self.entries(of: try RestrictedUnpickler.load(&reader), reader, at: dictionaryStart)
            storages = try Self.legacyStorages(&reader, of: entries.map(\.tensor.storage))
            guard reader.isAtEnd else {
                throw reader.malformed("\(reader.end - reader.offset) bytes after the last storage")
            }
        }
        var tensors: [String: Tensor] = [:]
        for (name, tensor) in entries {
            guard let range = storages[tensor.storage.key] else {
                throw .malformed(
                    path: path, offset: tensor.fileOffset, reason: "storage \(tensor.storage.key) is missing")
            }
            let read = try Self.tensor(tensor, storage: range, path: path, bytes: bytes)
            try ModelError.requireFinite(read.values, tensor: "tensor \(name)", path: path, offset: read.offset)
            tensors[name] = read
        }
        self.tensors = tensors
        names = entries.map(\.name)
    }

    /// The versions of the zip container `torch.save` writes (its `version` entry), which this reader knows.
    static let knownVersions = 1...3

    /// Refuses a zip container without its `version` entry, or of a version this reader does not know.
    private static func requireKnownVersion(_ entry: Range<Int>?, path: String, bytes: [UInt8]) throws(ModelError) {
        guard let entry else { throw .malformed(path: path, offset: 0, reason: "a zip archive without its version") }
        let text = String(decoding: bytes[entry], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let version = Int(text), knownVersions.contains(version) else {
            throw .unsupported(path: path, what: "checkpoint version \(text.prefix(20).debugDescription)")
        }
    }

    /// The tensor named `name`, which must have `shape`; errors name the file and where the tensor is.
    public func values(of name: String, shape: [Int]) throws(ModelError) -> [Float] {
        guard let tensor = tensors[name] else { throw .malformed(path: path, offset: 0, reason: "no tensor \(name)") }
        guard tensor.shape == shape else {
            throw .malformed(
                path: path, offset: tensor.offset,
                reason: "tensor \(name) has shape \(tensor.shape), expected \(shape)")
        }
        return tensor.values
    }

    /// The tensor named `name`, if there is one.
    public subscript(name: String) -> Tensor? { tensors[name] }

    /// The state dict's items: each a name and a tensor.
    private static func entries(of dictionary: PickleValue, _ reader: ModelBytes, at start: Int? = nil)
        throws(ModelError) -> [(name: String, tensor: PickleTensor)]
    {
        guard case .dict(let pairs) = dictionary else {
            throw reader.malformed("the state dict is not a dict", at: start ?? 0)
        }
        var entries: [(name: String, tensor: PickleTensor)] = []
        for pair in pairs {
            guard case .string(let name) = pair.key, case .tensor(let tensor) = pair.value else {
                throw reader.malformed("a state dict item is not a name and a tensor", at: start ?? 0)
            }
            entries.append((name, tensor))
        }
        return entries
    }

    /// The legacy format's storages after the state dict: the pickled list of keys, then for each key its
    /// element count (int64) and its bytes, as many as the element type (known from the tensors) takes.
    private static func legacyStorages(_ reader: inout ModelBytes, of used: [PickleStorage]) throws(ModelError)
        -> [String: Range<Int>]
    {
        let elements = Dictionary(used.map { ($0.key, $0.element) }, uniquingKeysWith: { first, _ in first })
        let keysStart = reader.offset
        guard case .list(let keys) = try RestrictedUnpickler.load(&reader) else {
            throw reader.malformed("the storage keys are not a list", at: keysStart)
        }
        var storages: [String: Range<Int>] = [:]
        for key in keys {
            let countStart = reader.offset
            guard case .string(let key) = key, let element = elements[key] else {
                throw reader.malformed("a storage key that no tensor uses", at: keysStart)
            }
            let count = try reader.littleEndian(UInt64.self)
            guard count <= UInt64(maximumCount) else {
                throw reader.malformed("storage \(key) claims \(count) elements", at: countStart)
            }
            let start = reader.offset
            _ = try reader.take(Int(count) * element.size)
            storages[key] = start..<reader.offset
        }
        return storages
    }

    /// A tensor's values gathered from its storage's bytes by its strides, converted to float.
    private static func tensor(_ tensor: PickleTensor, storage range: Range<Int>, path: String, bytes: [UInt8])
        throws(ModelError) -> Tensor
    {
        func malformed(_ reason: String) -> ModelError {
            .malformed(path: path, offset: tensor.fileOffset, reason: reason)
        }
        let element = tensor.storage.element, available = range.count / element.size
        guard range.count % element.size == 0, available >= tensor.storage.count else {
            throw malformed("storage \(tensor.storage.key) holds \(available) elements, not \(tensor.storage.count)")
        }
        guard tensor.shape.allSatisfy({ $0 >= 0 }), tensor.strides.allSatisfy({ $0 >= 0 }) else {
            throw malformed("a negative size or stride")
        }
        var count = 1, last = tensor.storageOffset
        for (size, stride) in zip(tensor.shape, tensor.strides) {
            let product = count.multipliedReportingOverflow(by: size)
            guard !product.overflow, product.partialValue <= maximumCount else {
                throw malformed("a tensor of shape \(tensor.shape) holds more than \(maximumCount) values")
            }
            count = product.partialValue
            if size > 0 { last += (size - 1) * stride }
        }
        guard count == 0 || last < tensor.storage.count else {
            throw malformed(
                "a tensor of shape \(tensor.shape) reads past its storage's \(tensor.storage.count) elements")
        }
        let values = bytes[range].withUnsafeBytes { raw in
            // Each value's element index: row-major over the shape, through the strides.
            var values = [Float](repeating: 0, count: count), index = [Int](repeating: 0, count: tensor.shape.count)
            var position = tensor.storageOffset
            for n in 0..<count {
                values[n] = element.value(in: raw, at: position)
                for axis in index.indices.reversed() {
                    index[axis] += 1
                    position += tensor.strides[axis]
                    if index[axis] < tensor.shape[axis] { break }
                    position -= index[axis] * tensor.strides[axis]
                    index[axis] = 0
                }
            }
            return values
        }
        return Tensor(shape: tensor.shape, values: values, offset: tensor.fileOffset)
    }
}

extension PickleStorage.Element {
    /// Element `index` of little-endian storage bytes, as a float.
    func value(in raw: UnsafeRawBufferPointer, at index: Int) -> Float {
        switch self {
        case .float32:
            Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
        case .float16:
            Float(
                Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)))
            )
        case .float64:
            Float(
                Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))))
        case .int64: Float(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: Int64.self)))
        case .int32: Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self)))
        }
    }
}

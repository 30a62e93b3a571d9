/// A value of a pickle that ``RestrictedUnpickler`` accepts: plain data, the few globals a PyTorch state
/// dict names, and what they build (storages by persistent id, tensors that view them).
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int)
    /// An integer too large for `Int`, as its little-endian two's-complement bytes (PyTorch's magic number).
    case largeInt([UInt8])
    case float(Double)
    case string(String)
    case tuple([PickleValue])
    case list([PickleValue])
    /// A dict or an `OrderedDict`, its items in order.
    case dict([(key: PickleValue, value: PickleValue)])
    case global(PickleGlobal)
    case storage(PickleStorage)
    case tensor(PickleTensor)
}

/// The only globals a state dict needs; any other name is refused before anything is looked up.
enum PickleGlobal: Equatable {
    case orderedDict
    case rebuildTensor
    case storageType(PickleStorage.Element)

    init?(module: String, name: String) {
        switch (module, name) {
        case ("collections", "OrderedDict"): self = .orderedDict
        case ("torch._utils", "_rebuild_tensor_v2"): self = .rebuildTensor
        case ("torch", "FloatStorage"): self = .storageType(.float32)
        case ("torch", "HalfStorage"): self = .storageType(.float16)
        case ("torch", "DoubleStorage"): self = .storageType(.float64)
        case ("torch", "LongStorage"): self = .storageType(.int64)
        case ("torch", "IntStorage"): self = .storageType(.int32)
        default: return nil
        }
    }
}

/// A storage named by a persistent id: `('storage', type, key, location, count[, view])`. Its bytes lie
/// outside the pickle (after it in the legacy format, in `data/<key>` in the zip one).
struct PickleStorage: Equatable {
    enum Element: Equatable {
        case float32, float16, float64, int64, int32

        var size: Int {
            switch self {
            case .float32, .int32: 4
            case .float16: 2
            case .float64, .int64: 8
            }
        }
    }

    let key: String
    let element: Element
    let count: Int
}

/// A tensor as `torch._utils._rebuild_tensor_v2` makes it: a strided view of a storage.
struct PickleTensor {
    let storage: PickleStorage
    let storageOffset: Int
    let shape: [Int]
    let strides: [Int]
    /// Where in the file the tensor was built, for errors about it.
    let fileOffset: Int
}

/// Reads one pickle (protocols 2 to 4) without running anything: it knows only the opcodes a PyTorch
/// state dict is written with and the globals of ``PickleGlobal``, and refuses every other opcode and
/// global with an error naming the byte. Python's unpickler resolves any global and calls it, which lets a
/// file run code; this one never resolves a name it does not list.
///
/// Containers are values: a memoised list or dict fetched again is as it was when memoised (a state dict
/// never fetches one it goes on filling).
struct RestrictedUnpickler {
    /// Deeper nesting is refused (a state dict nests 4 deep), so that no input can exhaust the stack.
    static let maximumDepth = 32

    /// A value and how deeply it nests.
    private struct Entry {
        var value: PickleValue
        var depth: Int
    }

    private var stack: [Entry] = []
    /// The stack's height at each open MARK.
    private var marks: [Int] = []
    private var memo: [Int: Entry] = [:]

    /// The pickle at `bytes`' offset; `bytes` is left after its STOP opcode.
    static func load(_ bytes: inout ModelBytes) throws(ModelError) -> PickleValue {
        var machine = RestrictedUnpickler()
        return try machine.run(&bytes)
    }

    private mutating func run(_ bytes: inout ModelBytes) throws(ModelError) -> PickleValue {
        while true {
            let position = bytes.offset
            let opcode = try bytes.byte()
            func malformed(_ reason: String) -> ModelError { bytes.malformed(reason, at: position) }
            switch opcode {
            case 0x80:  // PROTO
                let version = try bytes.byte()
                guard (2...4).contains(version) else { throw malformed("pickle protocol \(version) is not 2, 3 or 4") }
            case 0x95: _ = try bytes.take(8)  // FRAME: a length, of no use when the whole file is in memory
            case UInt8(ascii: "."):  // STOP
                guard stack.count == 1, marks.isEmpty else {
                    throw malformed("the pickle stops with \(stack.count) values on its stack")
                }
                return stack[0].value
            case UInt8(ascii: "("): marks.append(stack.count)  // MARK
            case UInt8(ascii: ")"): push(.tuple([]))
            case UInt8(ascii: "]"): push(.list([]))
            case UInt8(ascii: "}"): push(.dict([]))
            case UInt8(ascii: "N"): push(.none)
            case 0x88: push(.bool(true))  // NEWTRUE
            case 0x89: push(.bool(false))  // NEWFALSE
            case UInt8(ascii: "K"): push(.int(Int(try bytes.byte())))  // BININT1
            case UInt8(ascii: "M"): push(.int(Int(try bytes.littleEndian(UInt16.self))))  // BININT2
            case UInt8(ascii: "J"): push(.int(Int(Int32(bitPattern: try bytes.littleEndian(UInt32.self)))))  // BININT
            case 0x8A:  // LONG1: a little-endian two's-complement integer of up to 255 bytes
                let count = Int(try bytes.byte())
                push(Self.integer(Array(try bytes.take(count))))
            case UInt8(ascii: "G"):  // BINFLOAT, big-endian
                push(.float(Double(bitPattern: try bytes.take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })))
            case UInt8(ascii: "X"):  // BINUNICODE
                let count = Int(try bytes.littleEndian(UInt32.self))
                push(.string(try Self.text(try bytes.take(count), at: position, bytes)))
            case 0x8C:  // SHORT_BINUNICODE
                let count = Int(try bytes.byte())
                push(.string(try Self.text(try bytes.take(count), at: position, bytes)))
            case UInt8(ascii: "c"):  // GLOBAL: module and name, each ended by a newline
                let module = try Self.line(&bytes, at: position), name = try Self.line(&bytes, at: position)
                push(.global(try Self.global(module: module, name: name, at: position, bytes)))
            case 0x93:  // STACK_GLOBAL
                guard case .string(let name) = try pop(position, bytes).value,
                    case .string(let module) = try pop(position, bytes).value
                else { throw malformed("STACK_GLOBAL needs a module and a name") }
                push(.global(try Self.global(module: module, name: name, at: position, bytes)))
            case UInt8(ascii: "q"): try memoise(Int(try bytes.byte()), position, bytes)  // BINPUT
            case UInt8(ascii: "r"): try memoise(Int(try bytes.littleEndian(UInt32.self)), position, bytes)
            case 0x94: try memoise(memo.count, position, bytes)  // MEMOIZE
            case UInt8(ascii: "h"): try fetch(Int(try bytes.byte()), position, bytes)  // BINGET
            case UInt8(ascii: "j"): try fetch(Int(try bytes.littleEndian(UInt32.self)), position, bytes)
            case UInt8(ascii: "t"):  // TUPLE
                let items = try popMark(position, bytes)
                try push(.tuple(items.map(\.value)), holding: items, at: position, bytes)
            case 0x85, 0x86, 0x87:  // TUPLE1, TUPLE2, TUPLE3
                var items: [Entry] = []
                for _ in 0..<Int(opcode - 0x84) { items.insert(try pop(position, bytes), at: 0) }
                try push(.tuple(items.map(\.value)), holding: items, at: position, bytes)
            case UInt8(ascii: "a"): try extend(with: [try pop(position, bytes)], position, bytes)  // APPEND
            case UInt8(ascii: "e"): try extend(with: try popMark(position, bytes), position, bytes)  // APPENDS
            case UInt8(ascii: "s"):  // SETITEM
                let value = try pop(position, bytes), key = try pop(position, bytes)
                try extend(with: [key, value], position, bytes)
            case UInt8(ascii: "u"): try extend(with: try popMark(position, bytes), position, bytes)  // SETITEMS
            case UInt8(ascii: "Q"):  // BINPERSID
                push(.storage(try Self.storage(try pop(position, bytes).value, at: position, bytes)))
            case UInt8(ascii: "R"):  // REDUCE
                let arguments = try pop(position, bytes).value, callable = try pop(position, bytes).value
                push(try Self.reduce(callable, arguments, at: position, bytes))
            case UInt8(ascii: "b"):  // BUILD: an OrderedDict's attributes (PyTorch's `_metadata`), not kept
                let state = try pop(position, bytes).value
                guard case .dict = state, case .dict = try top(position, bytes).value else {
                    throw malformed("BUILD sets the state of something that is not a dict")
                }
            default:
                throw malformed("pickle opcode 0x\(String(opcode, radix: 16)) is refused: a state dict does not use it")
            }
        }
    }

    // MARK: The stack and the memo

    private mutating func push(_ value: PickleValue) {
        stack.append(Entry(value: value, depth: 0))
    }

    /// Pushes a container made of `children`, refused when it would nest too deeply.
    private mutating func push(
        _ value: PickleValue, holding children: [Entry], at position: Int, _ bytes: ModelBytes
    ) throws(ModelError) {
        stack.append(Entry(value: value, depth: try Self.depth(holding: children, at: position, bytes)))
    }

    private static func depth(holding children: [Entry], at position: Int, _ bytes: ModelBytes) throws(ModelError)
        -> Int
    {
        let depth = 1 + (children.map(\.depth).max() ?? 0)
        guard depth <= maximumDepth else {
            throw bytes.malformed("values nest deeper than \(maximumDepth)", at: position)
        }
        return depth
    }

    private func top(_ position: Int, _ bytes: ModelBytes) throws(ModelError) -> Entry {
        guard let last = stack.last, stack.count > (marks.last ?? 0) else {
            throw bytes.malformed("an opcode needs a value and the stack has none", at: position)
        }
        return last
    }

    private mutating func pop(_ position: Int, _ bytes: ModelBytes) throws(ModelError) -> Entry {
        let entry = try top(position, bytes)
        stack.removeLast()
        return entry
    }

    /// The values pushed since the last MARK, which it closes.
    private mutating func popMark(_ position: Int, _ bytes: ModelBytes) throws(ModelError) -> [Entry] {
        guard let mark = marks.popLast() else { throw bytes.malformed("no MARK to close", at: position) }
        defer { stack.removeSubrange(mark...) }
        return Array(stack[mark...])
    }

    /// Appends `items` to the list on top of the stack, or sets them (key, value, key, value …) in the dict.
    private mutating func extend(with items: [Entry], _ position: Int, _ bytes: ModelBytes) throws(ModelError) {
        var target = try pop(position, bytes)
        switch target.value {
        case .list(let values):
            target.value = .list(values + items.map(\.value))
        case .dict(var pairs) where items.count % 2 == 0:
            for index in stride(from: 0, to: items.count, by: 2) {
                pairs.append((items[index].value, items[index + 1].value))
            }
            target.value = .dict(pairs)
        default:
            throw bytes.malformed("items added to something that is not a list or a dict", at: position)
        }
        target.depth = max(target.depth, try Self.depth(holding: items, at: position, bytes))
        stack.append(target)
    }

    private mutating func memoise(_ index: Int, _ position: Int, _ bytes: ModelBytes) throws(ModelError) {
        memo[index] = try top(position, bytes)
    }

    private mutating func fetch(_ index: Int, _ position: Int, _ bytes: ModelBytes) throws(ModelError) {
        guard let entry = memo[index] else { throw bytes.malformed("memo \(index) was never stored", at: position) }
        stack.append(entry)
    }

    // MARK: Values

    private static func integer(_ bytes: [UInt8]) -> PickleValue {
        guard bytes.count <= 8 else { return .largeInt(bytes) }
        guard let last = bytes.last else { return .int(0) }
        let fill: UInt8 = last & 0x80 != 0 ? 0xFF : 0
        let padded = bytes + [UInt8](repeating: fill, count: 8 - bytes.count)
        return .int(Int(Int64(bitPattern: padded.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })))
    }

    private static func text(_ raw: ArraySlice<UInt8>, at position: Int, _ bytes: ModelBytes) throws(ModelError)
        -> String
    {
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw bytes.malformed("a string is not UTF-8", at: position)
        }
        return text
    }

    /// The text up to the next newline, which it consumes.
    private static func line(_ bytes: inout ModelBytes, at position: Int) throws(ModelError) -> String {
        var raw: [UInt8] = []
        while true {
            let byte = try bytes.byte()
            if byte == UInt8(ascii: "\n") { break }
            raw.append(byte)
            guard raw.count <= 256 else { throw bytes.malformed("a global's name runs past 256 bytes", at: position) }
        }
        return try text(raw[...], at: position, bytes)
    }

    private static func global(module: String, name: String, at position: Int, _ bytes: ModelBytes)
        throws(ModelError) -> PickleGlobal
    {
        guard let global = PickleGlobal(module: module, name: name) else {
            throw bytes.malformed(
                "global \(module).\(name) is refused: a state dict needs only OrderedDict, tensors and storages",
                at: position)
        }
        return global
    }

    /// A storage from its persistent id, `('storage', type, key, location, count[, view])`.
    private static func storage(_ id: PickleValue, at position: Int, _ bytes: ModelBytes) throws(ModelError)
        -> PickleStorage
    {
        guard case .tuple(let fields) = id, fields.count == 5 || fields.count == 6,
            case .string("storage") = fields[0], case .global(.storageType(let element)) = fields[1],
            case .string(let key) = fields[2], case .string = fields[3], case .int(let count) = fields[4], count >= 0
        else {
            throw bytes.malformed("a persistent id is not ('storage', type, key, location, count)", at: position)
        }
        return PickleStorage(key: key, element: element, count: count)
    }

    /// What calling `callable` with `arguments` makes, for the two callables allowed.
    private static func reduce(_ callable: PickleValue, _ arguments: PickleValue, at position: Int, _ bytes: ModelBytes)
        throws(ModelError) -> PickleValue
    {
        guard case .tuple(let arguments) = arguments else {
            throw bytes.malformed("REDUCE's arguments are not a tuple", at: position)
        }
        switch callable {
        case .global(.orderedDict) where arguments.isEmpty:
            return .dict([])
        case .global(.rebuildTensor) where arguments.count == 6 || arguments.count == 7:
            guard case .storage(let storage) = arguments[0], case .int(let storageOffset) = arguments[1],
                storageOffset >= 0, let shape = integers(arguments[2]), let strides = integers(arguments[3]),
                shape.count == strides.count
            else {
                throw bytes.malformed(
                    "a tensor is not rebuilt from (storage, offset, size, stride, requires_grad, hooks)", at: position)
            }
            return .tensor(
                PickleTensor(
                    storage: storage, storageOffset: storageOffset, shape: shape, strides: strides,
                    fileOffset: position))
        default:
            throw bytes.malformed("REDUCE calls something other than OrderedDict() or a tensor rebuild", at: position)
        }
    }

    private static func integers(_ value: PickleValue) -> [Int]? {
        guard case .tuple(let items) = value else { return nil }
        var result: [Int] = []
        for item in items {
            guard case .int(let integer) = item else { return nil }
            result.append(integer)
        }
        return result
    }
}

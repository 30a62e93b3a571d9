import BenchmarkSupport
import Foundation
import NeuralNetworks
import TestSupport
import Testing

/// The PyTorch checkpoint reader on checkpoints the test writes (both containers, strided views, shared
/// storages), on damaged and hostile variants of them, and on the real EfficientNet-Lite0 file.
@Suite struct PyTorchCheckpointTests {
    /// One storage of six floats seen twice (transposed, and from its third value), and a 0-d int64 tensor.
    static let sample = CheckpointBuilder(
        storages: [
            .init(key: "0", type: "FloatStorage", values: [1, 2, 3, 4, 5, 6]),
            .init(key: "1", type: "LongStorage", values: [7]),
        ],
        entries: [
            .init(name: "conv.weight", storage: "0", offset: 0, shape: [2, 3], strides: [1, 2]),
            .init(name: "bn.bias", storage: "0", offset: 2, shape: [3], strides: [1]),
            .init(name: "bn.num_batches_tracked", storage: "1", offset: 0, shape: [], strides: []),
        ])

    @Test(arguments: ["legacy", "zip"])
    func writtenCheckpointsRead(_ container: String) throws {
        let bytes = container == "zip" ? Self.sample.zip : Self.sample.legacy
        let checkpoint = try PyTorchCheckpoint(path: "sample.pth", bytes: bytes)
        #expect(checkpoint.names == ["conv.weight", "bn.bias", "bn.num_batches_tracked"])
        #expect(try checkpoint.values(of: "conv.weight", shape: [2, 3]) == [1, 3, 5, 2, 4, 6])
        #expect(try checkpoint.values(of: "bn.bias", shape: [3]) == [3, 4, 5])
        #expect(try checkpoint.values(of: "bn.num_batches_tracked", shape: []) == [7])
        let offset = try #require(checkpoint["conv.weight"]).offset
        #expect(
            throws: ModelError.malformed(
                path: "sample.pth", offset: offset, reason: "tensor conv.weight has shape [2, 3], expected [3, 2]")
        ) {
            try checkpoint.values(of: "conv.weight", shape: [3, 2])
        }
        #expect(throws: ModelError.self) { try checkpoint.values(of: "fc.weight", shape: [1]) }
    }

    /// Every prefix of either container is an error, never a checkpoint and never a crash.
    @Test(arguments: ["legacy", "zip"])
    func truncatedCheckpointsAreErrors(_ container: String) {
        let bytes = container == "zip" ? Self.sample.zip : Self.sample.legacy
        for length in 0..<bytes.count {
            #expect(throws: ModelError.self, "\(container) cut to \(length) bytes") {
                try PyTorchCheckpoint(path: "cut.pth", bytes: Array(bytes.prefix(length)))
            }
        }
    }

    /// A global other than the four a state dict needs, an opcode it does not use, or values nested
    /// without end: refused, naming the byte where they start.
    @Test func hostilePicklesAreRefusedAtTheirOffset() throws {
        /// Where in the pickle, and why, the reader refuses a legacy file whose state dict is `pickle`.
        func refusal(_ pickle: [UInt8]) -> (offset: Int, reason: String)? {
            let header = CheckpointBuilder.legacyHeader
            do {
                _ = try PyTorchCheckpoint(path: "hostile.pth", bytes: header + pickle)
                Issue.record("a hostile pickle was read")
            } catch .malformed("hostile.pth", let offset, let reason) {
                return (offset - header.count, reason)
            } catch {
                Issue.record("\(error)")
            }
            return nil
        }
        var system = CheckpointBuilder.Pickle()
        system.proto()
        system.global("os", "system")
        system.string("echo owned")
        system.op("R")
        system.op(".")
        let global = try #require(refusal(system.bytes))
        #expect(global.offset == 2 && global.reason.contains("os.system"))

        var instance = CheckpointBuilder.Pickle()
        instance.proto()
        instance.op("(")
        instance.op("i")  // INST: builds an object of any class it names
        instance.bytes(Array("collections\nOrderedDict\n.".utf8))
        let opcode = try #require(refusal(instance.bytes))
        #expect(opcode.offset == 3 && opcode.reason.contains("opcode 0x69"))

        var nested = CheckpointBuilder.Pickle()
        nested.proto()
        nested.op(")")
        for _ in 0..<100_000 { nested.bytes([0x85]) }  // TUPLE1 around the last value, again and again
        nested.op(".")
        let deep = try #require(refusal(nested.bytes))
        #expect(deep.offset == 3 + 32 && deep.reason.contains("nest"))
    }

    /// Bytes changed at random: each read is a checkpoint or a ``ModelError``, and nothing else happens.
    @Test func corruptedCheckpointsAreCheckpointsOrErrors() {
        var generator = SeededGenerator()
        var errors = 0
        for container in ["legacy", "zip"] {
            let bytes = container == "zip" ? Self.sample.zip : Self.sample.legacy
            for _ in 0..<500 {
                var damaged = bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                do {
                    let checkpoint = try PyTorchCheckpoint(path: "corrupt.pth", bytes: damaged)
                    for name in checkpoint.names {
                        let tensor = checkpoint[name]
                        #expect(tensor.map { $0.values.count == $0.shape.reduce(1, *) } == true)
                    }
                } catch {
                    errors += 1
                }
            }
        }
        #expect(errors > 0, "seed \(generator.seed): no damage was noticed")
    }

    /// A weight that is NaN or infinite makes every output NaN: the checkpoint is refused, naming the file
    /// and the tensor, in either container.
    @Test(arguments: ["legacy", "zip"])
    func nonFiniteWeightsAreRefused(_ container: String) {
        for poison in [Float.nan, .infinity, -.infinity] {
            let builder = CheckpointBuilder(tensors: [
                (name: "conv.weight", shape: [2, 2], values: [1, 2, 3, 4]),
                (name: "bn.bias", shape: [3], values: [0.5, poison, 1]),
            ])
            do {
                _ = try PyTorchCheckpoint(
                    path: "poisoned.pth", bytes: container == "zip" ? builder.zip : builder.legacy)
                Issue.record("\(container): a checkpoint holding \(poison) was read")
            } catch .malformed(let path, _, let reason) {
                #expect(
                    path == "poisoned.pth" && reason.contains("tensor bn.bias") && reason.contains("finite"),
                    "\(reason)")
            } catch {
                Issue.record("\(container): \(error)")
            }
        }
    }

    /// A zip container of a version `torch.save` never wrote, or without one, and either container with bytes
    /// after its end: refused, not read as far as it goes.
    @Test func unknownVersionsAndTrailingBytesAreRefused() {
        var builder = Self.sample
        for version in ["999\n", "", "three", "0"] {
            builder.version = version
            #expect(throws: ModelError.self, "version \(version.debugDescription)") {
                try PyTorchCheckpoint(path: "version.pth", bytes: builder.zip)
            }
        }
        for container in ["legacy", "zip"] {
            let bytes = container == "zip" ? Self.sample.zip : Self.sample.legacy
            for trailing in [[UInt8(0)], Array("PK".utf8), [UInt8](repeating: 0x41, count: 100)] {
                do {
                    _ = try PyTorchCheckpoint(path: "trailing.pth", bytes: bytes + trailing)
                    Issue.record("\(container): \(trailing.count) trailing bytes were accepted")
                } catch .malformed(_, _, let reason) {
                    #expect(reason.contains("after"), "\(container): \(reason)")
                } catch {
                    Issue.record("\(container): \(error)")
                }
            }
        }
    }

    @Test func theRealCheckpointReads() throws {
        let reference = try EfficientNetReference.load()
        let checkpoint = try PyTorchCheckpoint(contentsOf: EfficientNetReference.model)
        #expect(checkpoint.names.count == reference.tensorCount)
        for expected in reference.tensors {
            let values = try checkpoint.values(of: expected.name, shape: expected.shape)
            let sum = values.reduce(0.0) { $0 + Double($1) }
            #expect(abs(sum - expected.sum) <= 1e-4 * max(1, abs(expected.sum)), "\(expected.name): sum \(sum)")
            #expect(Array(values.prefix(expected.first.count)) == expected.first, "\(expected.name)")
        }
    }
}

import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// The neighbour kernel against every pair computed here, on both devices: random embeddings in loose
/// groups (so that radii cut lists short and lists fill), odd counts, tiles that start anywhere, with and
/// without stand-ins (the rows' first values and the length of the rest, which never lie farther apart).
@Suite struct EmbeddingNeighboursTests {
    @Test(arguments: GalleryTests.devices, [false, true])
    func nearestRowsMatchTheReference(_ choice: DeviceChoice, withStandIns: Bool) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: try TestDevices.device(choice))
        for _ in 0..<3 {
            let length = TestImages.oddSize(3...40, using: &generator),
                count = TestImages.oddSize(9...300, using: &generator)
            let centres = (0..<5).map { _ in (0..<length).map { _ in Float.random(in: -1..<1, using: &generator) } }
            let rows = (0..<count).map { _ in
                centres[Int.random(in: 0..<5, using: &generator)].map {
                    $0 + Float.random(in: -0.2..<0.2, using: &generator)
                }
            }
            let start = Int.random(in: 0..<count, using: &generator),
                queries = Int.random(in: 1...(count - start), using: &generator)
            let k = Int.random(in: 1...EmbeddingNeighbours.maximumNeighbours, using: &generator)
            let radius = Float.random(in: 0.3..<3, using: &generator)
            let gallery = try PixelBuffer(
                width: length, height: count + 3, values: rows.flatMap { $0 } + [Float](repeating: 9, count: 3 * length)
            )
            let kept = Int.random(in: 1...length, using: &generator)
            let standIns = try PixelBuffer(
                width: kept + 1, height: count,
                values: rows.flatMap { row in
                    row.prefix(kept) + [row.dropFirst(kept).reduce(0) { $0 + $1 * $1 }.squareRoot()]
                })
            let output = try context.render(
                Image(gallery).applying(
                    EmbeddingNeighbours(
                        queryStart: start, queryCount: queries, count: count,
                        k: k, radius: radius, slack: withStandIns ? 1e-3 : 0),
                    with: withStandIns ? [Image(standIns)] : [])
            ).floatValues
            // One more than k, so that the row just past a full list counts as a neighbour's rival.
            let expected = Reference.neighbours(of: start..<start + queries, in: rows, k: k + 1, radius: radius)
            let place =
                """
                \(choice), seed \(generator.seed), \(count) rows of \(length), rows \(start)..<\(start + queries), \
                k \(k), radius \(radius), stand-ins of \(withStandIns ? kept + 1 : 0)
                """
            for (q, extended) in expected.enumerated() {
                let list = Array(extended.prefix(k))
                let distances = output[q * k..<(q + 1) * k], indices = output[(queries + q) * k..<(queries + q + 1) * k]
                // Rows whose distance lies within rounding of the radius or of another candidate (the row after
                // the last included) may fairly come either way.
                let clear = list.indices.filter { i in
                    abs(list[i].distance - radius) > 1e-4
                        && (extended.indices.filter { $0 != i }.allSatisfy {
                            abs(extended[$0].distance - list[i].distance) > 1e-4
                        })
                }
                for i in clear {
                    #expect(
                        Int(indices[indices.startIndex + i]) == list[i].row,
                        "neighbour \(i) of row \(start + q): \(place)")
                }
                for i in list.indices {
                    #expect(
                        abs(distances[distances.startIndex + i] - list[i].distance) <= 1e-4,
                        "distance \(i) of row \(start + q): \(place)")
                }
                if list.count < k, list.allSatisfy({ abs($0.distance - radius) > 1e-4 }) {
                    #expect(
                        distances[distances.startIndex + list.count] == .infinity
                            && indices[indices.startIndex + list.count] == -1,
                        "row \(start + q) has only \(list.count): \(place)")
                }
            }
        }
    }

    /// Many rows repeated at exact coordinates (halves: every sum exact), so that lists are full of ties: each
    /// list must come out whole and in row order among equal distances, whatever order the pairs are met in.
    @Test(arguments: GalleryTests.devices)
    func tiesGoToTheLowerRow(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: try TestDevices.device(choice))
        for _ in 0..<3 {
            let length = TestImages.oddSize(3...20, using: &generator),
                count = TestImages.oddSize(50...700, using: &generator)
            let points = (0..<6).map { _ in
                (0..<length).map { _ in Float(Int.random(in: -4...4, using: &generator)) / 2 }
            }
            let rows = (0..<count).map { _ in points[Int.random(in: 0..<6, using: &generator)] }
            let start = Int.random(in: 0..<count / 2, using: &generator),
                queries = Int.random(in: 1...(count - start), using: &generator)
            let k = Int.random(in: 1...20, using: &generator),
                radius = Float(Int.random(in: 1...4, using: &generator)) + 0.3
            let gallery = try PixelBuffer(width: length, height: count, values: rows.flatMap { $0 })
            let output = try context.render(
                Image(gallery).applying(
                    EmbeddingNeighbours(
                        queryStart: start, queryCount: queries, count: count,
                        k: k, radius: radius))
            ).floatValues
            let expected = Reference.neighbours(of: start..<start + queries, in: rows, k: k, radius: radius)
            let place =
                """
                \(choice), seed \(generator.seed), \(count) rows of \(length), rows \(start)..<\(start + queries), \
                k \(k)
                """
            for (q, list) in expected.enumerated() {
                let found = output[(queries + q) * k..<(queries + q + 1) * k].map { Int($0) }
                #expect(
                    found == list.map(\.row) + [Int](repeating: -1, count: k - list.count), "row \(start + q): \(place)"
                )
            }
        }
    }

    @Test func badRangesAreRefused() throws {
        let gallery = Image(try PixelBuffer(width: 4, height: 10, values: [Float](repeating: 0, count: 40)))
        for filter in [
            EmbeddingNeighbours(queryStart: 8, queryCount: 3, count: 10, k: 4, radius: 1),
            EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 11, k: 4, radius: 1),
            EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 10, k: 65, radius: 1),
            EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 10, k: 4, radius: .nan),
        ] {
            #expect(throws: RenderError.self) { try RenderContext(device: .cpu).render(gallery.applying(filter)) }
        }
        // Stand-ins for fewer rows than the gallery's, a negative or infinite slack.
        let standIns = Image(try PixelBuffer(width: 3, height: 9, values: [Float](repeating: 0, count: 27)))
        let enough = Image(try PixelBuffer(width: 3, height: 10, values: [Float](repeating: 0, count: 30)))
        for (filter, stand) in [
            (EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 10, k: 4, radius: 1, slack: 0.01), standIns),
            (EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 10, k: 4, radius: 1, slack: -1), enough),
            (EmbeddingNeighbours(queryStart: 0, queryCount: 1, count: 10, k: 4, radius: 1, slack: .infinity), enough),
        ] {
            #expect(throws: RenderError.self) {
                try RenderContext(device: .cpu).render(gallery.applying(filter, with: [stand]))
            }
        }
    }
}

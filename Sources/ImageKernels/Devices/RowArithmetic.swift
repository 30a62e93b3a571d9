/// Sums over two rows of floats that CPU twins and host code share, eight lanes at a time: a loop that adds
/// one product after another cannot be vectorised by the compiler (the order of float additions is fixed),
/// and runs four to eight times slower.
public enum RowArithmetic {
    /// Σ a[i] · b[i] over `count` values.
    @inlinable
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sums = SIMD8<Float>(), i = 0
        while i + 8 <= count {
            sums.addProduct(
                UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self),
                UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self))
            i += 8
        }
        var total = sums.sum()
        while i < count {
            total += a[i] * b[i]
            i += 1
        }
        return total
    }

    /// Σ (a[i] − b[i])² over `count` values.
    @inlinable
    public static func squaredDistance(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sums = SIMD8<Float>(), i = 0
        while i + 8 <= count {
            let difference =
                UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
                - UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
            sums.addProduct(difference, difference)
            i += 8
        }
        var total = sums.sum()
        while i < count {
            let difference = a[i] - b[i]
            total += difference * difference
            i += 1
        }
        return total
    }

    /// Four rows, as a tile's operands.
    public typealias FourRows = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)

    /// ``dot(_:_:count:)`` of each of the rows `a` with each of the rows `b`, row r of `a` with row c of `b` at
    /// r × 4 + c: the same sums in the same order, so the same floats, sixteen in flight on eight loads where
    /// one at a time waits on itself.
    @inlinable
    public static func dots(_ a: FourRows, _ b: FourRows, count: Int) -> SIMD16<Float> {
        tile(a, b, count: count, add: { sums, x, y in sums.addProduct(x, y) }, addTail: { $0 * $1 })
    }

    /// ``squaredDistance(_:_:count:)`` of each of the rows `a` with each of the rows `b`, as
    /// ``dots(_:_:count:)`` lays them out: the same sums in the same order, so the same floats.
    @inlinable
    public static func squaredDistances(_ a: FourRows, _ b: FourRows, count: Int) -> SIMD16<Float> {
        tile(
            a, b, count: count,
            add: { sums, x, y in
                let difference = x - y
                sums.addProduct(difference, difference)
            },
            addTail: { ($0 - $1) * ($0 - $1) })
    }

    /// Sixteen sums of `add`'s vectors over four rows against four, then of `addTail`'s values past the last
    /// whole vector, each in the order one pair's loop takes.
    @inlinable @inline(__always)
    static func tile(
        _ a: FourRows, _ b: FourRows, count: Int, add: (inout SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) -> Void,
        addTail: (Float, Float) -> Float
    ) -> SIMD16<Float> {
        @inline(__always) func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
            UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
        }
        var (s00, s01, s02, s03) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var (s10, s11, s12, s13) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var (s20, s21, s22, s23) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var (s30, s31, s32, s33) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var i = 0
        while i + 8 <= count {
            let (b0, b1, b2, b3) = (load(b.0 + i), load(b.1 + i), load(b.2 + i), load(b.3 + i))
            var x = load(a.0 + i)
            add(&s00, x, b0)
            add(&s01, x, b1)
            add(&s02, x, b2)
            add(&s03, x, b3)
            x = load(a.1 + i)
            add(&s10, x, b0)
            add(&s11, x, b1)
            add(&s12, x, b2)
            add(&s13, x, b3)
            x = load(a.2 + i)
            add(&s20, x, b0)
            add(&s21, x, b1)
            add(&s22, x, b2)
            add(&s23, x, b3)
            x = load(a.3 + i)
            add(&s30, x, b0)
            add(&s31, x, b1)
            add(&s32, x, b2)
            add(&s33, x, b3)
            i += 8
        }
        var totals = SIMD16<Float>(
            s00.sum(), s01.sum(), s02.sum(), s03.sum(), s10.sum(), s11.sum(), s12.sum(), s13.sum(),
            s20.sum(), s21.sum(), s22.sum(), s23.sum(), s30.sum(), s31.sum(), s32.sum(), s33.sum())
        if i < count {
            let rows = [a.0, a.1, a.2, a.3], columns = [b.0, b.1, b.2, b.3]
            for pair in 0..<16 {
                for j in i..<count { totals[pair] += addTail(rows[pair / 4][j], columns[pair % 4][j]) }
            }
        }
        return totals
    }
}

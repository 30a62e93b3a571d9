/// The inner product the CPU twins' matrix products share: four rows of `depth` floats against sixteen
/// columns held as two panels of eight lanes (`low[k]`, `high[k]`: the columns' k-th values), eight sums in
/// vector registers, each row value broadcast once for sixteen columns. Four rows × 8 columns read five
/// values per four multiply-adds and wait on memory; this tile reads six per eight.
public struct RegisterTile {
    /// Row r's sums with columns 0–7 and 8–15.
    public var low: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
    public var high: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)

    /// Σₖ rows[r][k] · column[k] for the four rows `r0`…`r3` (repeat a row to use fewer).
    @inlinable @inline(__always)
    public init(
        _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>, _ r2: UnsafePointer<Float>, _ r3: UnsafePointer<Float>,
        low lowPanel: UnsafePointer<SIMD8<Float>>, high highPanel: UnsafePointer<SIMD8<Float>>, depth: Int
    ) {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var s4 = SIMD8<Float>(), s5 = SIMD8<Float>(), s6 = SIMD8<Float>(), s7 = SIMD8<Float>()
        for k in 0..<depth {
            let low = lowPanel[k], high = highPanel[k]
            let a0 = SIMD8(repeating: r0[k]), a1 = SIMD8(repeating: r1[k])
            let a2 = SIMD8(repeating: r2[k]), a3 = SIMD8(repeating: r3[k])
            s0.addProduct(a0, low)
            s4.addProduct(a0, high)
            s1.addProduct(a1, low)
            s5.addProduct(a1, high)
            s2.addProduct(a2, low)
            s6.addProduct(a2, high)
            s3.addProduct(a3, low)
            s7.addProduct(a3, high)
        }
        low = (s0, s1, s2, s3)
        high = (s4, s5, s6, s7)
    }

    /// Row `r`'s sums with columns 0–7 (`half` 0) or 8–15 (`half` 1).
    @inlinable
    public func sums(row r: Int, half: Int) -> SIMD8<Float> {
        let sums = half == 0 ? low : high
        switch r {
        case 0: return sums.0
        case 1: return sums.1
        case 2: return sums.2
        default: return sums.3
        }
    }
}

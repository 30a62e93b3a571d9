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

#if FACESEARCH_AVX512
    /// ``RegisterTile`` for builds with AVX-512 (Package.swift): eight rows against the sixteen columns
    /// held as one 512-bit vector, eight sums in flight, so that both multiply-add units stay busy (with
    /// four rows, one 512-bit sum a row waits on the last). Each sum adds the same products in the same
    /// order as ``RegisterTile``'s.
    public struct WideRegisterTile {
        public var sums:
            (
                SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>,
                SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>
            )

        /// Σₖ rows[r][k] · column[k] for eight rows of `depth` floats, `stride` floats apart.
        @inlinable @inline(__always)
        public init(
            rows: UnsafePointer<Float>, stride: Int,
            low lowPanel: UnsafePointer<SIMD8<Float>>, high highPanel: UnsafePointer<SIMD8<Float>>, depth: Int
        ) {
            let r0 = rows, r1 = rows + stride, r2 = rows + 2 * stride, r3 = rows + 3 * stride
            let r4 = rows + 4 * stride, r5 = rows + 5 * stride, r6 = rows + 6 * stride, r7 = rows + 7 * stride
            var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
            var s4 = SIMD16<Float>(), s5 = SIMD16<Float>(), s6 = SIMD16<Float>(), s7 = SIMD16<Float>()
            for k in 0..<depth {
                let column = SIMD16(lowHalf: lowPanel[k], highHalf: highPanel[k])
                s0.addProduct(SIMD16(repeating: r0[k]), column)
                s1.addProduct(SIMD16(repeating: r1[k]), column)
                s2.addProduct(SIMD16(repeating: r2[k]), column)
                s3.addProduct(SIMD16(repeating: r3[k]), column)
                s4.addProduct(SIMD16(repeating: r4[k]), column)
                s5.addProduct(SIMD16(repeating: r5[k]), column)
                s6.addProduct(SIMD16(repeating: r6[k]), column)
                s7.addProduct(SIMD16(repeating: r7[k]), column)
            }
            sums = (s0, s1, s2, s3, s4, s5, s6, s7)
        }

        /// Row `r`'s sums with the sixteen columns.
        @inlinable
        public func sums(row r: Int) -> SIMD16<Float> {
            switch r {
            case 0: return sums.0
            case 1: return sums.1
            case 2: return sums.2
            case 3: return sums.3
            case 4: return sums.4
            case 5: return sums.5
            case 6: return sums.6
            default: return sums.7
            }
        }
    }
#endif

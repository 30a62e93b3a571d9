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
}

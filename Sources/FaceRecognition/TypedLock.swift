import Foundation

extension NSLock {
    /// `withLock` for bodies with a typed error (the standard one rethrows it untyped).
    func withTypedLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

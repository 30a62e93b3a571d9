import Foundation

/// Waiting for a server a test started to answer for the first time.
public enum FirstAnswer {
    /// Asks `answers` every 100 ms until it says yes, while `running`: at least 150 times and for at least 60 s
    /// (a loaded two-core machine can take long to start a server, and the test's own threads can be held up
    /// by other tests for long stretches, so neither a count nor a clock alone is enough), at most 5 minutes.
    /// Whether it answered.
    public static func wait(while running: () -> Bool, _ answers: () async -> Bool) async throws -> Bool {
        let patience = ContinuousClock.now + .seconds(60), limit = ContinuousClock.now + .seconds(300)
        var tries = 0
        while running(), tries < 150 || ContinuousClock.now < patience, ContinuousClock.now < limit {
            if await answers() { return true }
            tries += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The error of a `cbir serve` at `base` that never answered: what it printed (the end of `output`) says why.
    public static func silence(at base: String, printed output: String) -> CocoaError {
        CocoaError(
            .fileReadUnknown,
            userInfo: [
                NSLocalizedDescriptionKey: "cbir serve did not answer at \(base), or ended; it printed: "
                    + output.suffix(1500)
            ])
    }
}

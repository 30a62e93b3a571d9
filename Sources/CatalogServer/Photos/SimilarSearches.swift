import Catalog
import Foundation
import ImageKernels

/// Similar-photo searches that arrive together, run together: while one batch searches the prints, the
/// requests that come meanwhile wait and go into the next, so that sixteen at once read the prints (51 MB
/// at 10,000 photos) about twice rather than sixteen times. A request alone is searched at once.
actor SimilarSearches {
    private let catalog: Catalog
    private let context: RenderContext
    /// Where a batch runs (nil: Swift's own threads).
    private let threads: BlockingThreads?
    private var waiting: [Waiting] = []
    private var isSearching = false
    /// The most searches in one batch.
    static let batchLimit = 16

    private struct Waiting {
        let print: [Float]
        let top: Int
        let continuation: CheckedContinuation<[SimilarPhoto], any Error>
    }

    init(catalog: Catalog, context: RenderContext, threads: BlockingThreads?) {
        self.catalog = catalog
        self.context = context
        self.threads = threads
    }

    /// The `top` photos nearest to `print`, as ``Catalog/similarPhotos(to:top:context:)`` finds them.
    func similar(to print: [Float], top: Int) async throws -> [SimilarPhoto] {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append(Waiting(print: print, top: top, continuation: continuation))
            guard !isSearching else { return }
            isSearching = true
            Task { await searchWhileWaiting() }
        }
    }

    /// Searches for the waiting requests, a batch at a time, until none waits; off the actor, so that new
    /// requests can wait meanwhile.
    private func searchWhileWaiting() async {
        while !waiting.isEmpty {
            let batch = Array(waiting.prefix(Self.batchLimit))
            waiting.removeFirst(batch.count)
            let (catalog, context, prints) = (catalog, context, batch.map(\.print))
            let top = batch.map(\.top).max() ?? 1
            let found = await Task.detached(executorPreference: threads) {
                Result { () throws(CatalogError) in try catalog.similarPhotos(to: prints, top: top, context: context) }
            }.value
            switch found {
            case .success(let photos):
                for (request, photos) in zip(batch, photos) {
                    request.continuation.resume(returning: Array(photos.prefix(request.top)))
                }
            case .failure(let error):
                for request in batch { request.continuation.resume(throwing: error) }
            }
        }
        isSearching = false
    }
}

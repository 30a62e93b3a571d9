import Hummingbird

/// Runs each request on ``BlockingThreads``, where its catalog calls may wait on the database without holding
/// up the others.
struct OnBlockingThreads<Context: RequestContext>: RouterMiddleware {
    let threads: BlockingThreads

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        try await withTaskExecutorPreference(threads) { try await next(request, context) }
    }
}

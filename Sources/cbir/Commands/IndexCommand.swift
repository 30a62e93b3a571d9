import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels

/// `cbir index`: adds a folder of photos to the database, resuming where an earlier run stopped.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: """
            Find, align, describe and store the faces of every photo under a folder, and print each photo for \
            similar photos and duplicates.
            """,
        discussion: """
            Walks the folder recursively and recognises images by content. Unchanged files are skipped, changed \
            ones re-indexed; a file that cannot be read is recorded with its error and indexing goes on. Several \
            batches of files are indexed at once (--jobs), the faces of a batch described and embedded together \
            (--batch). Each batch is one transaction and each file in it is stored whole: a run that is interrupted \
            loses \
            nothing stored, and the next run finishes the rest. A folder that cannot be listed is reported and \
            recorded like a failed file. A stored file whose bytes are found at a new path in the folder was moved \
            or renamed: it takes that path and keeps its faces, names and people. With --library NAME, the folder \
            is that library's root on this machine: its photos are stored by their paths inside it, so that \
            machines that share a PostgreSQL catalog and mount the library in different places see each photo \
            once. Files stored \
            from this folder that are gone from it are removed first (their labels saved to a file beside the \
            database, for `cbir labels --import`), unless --keep-missing. New faces are then grouped into people \
            (`cbir people`). Each photo is also printed (its EfficientNet-Lite0 print, perceptual hash and \
            sharpness); photos indexed without prints get them without their faces being found again. \
            --no-faces and --no-photos skip either analysis. Progress goes to stderr (one updating line on a \
            terminal, plain lines otherwise), the \
            summary to stdout.

            Several machines can index one library together: run the same command, with the same --library name \
            and --db postgres://…, on each. The first lists the folder and queues its files in batches; every \
            worker claims batches one at a time under a lease (--lease) that it renews while it works, so a \
            worker that dies leaves its batch to another once the lease runs out, and no photo is stored twice. \
            Workers of another build, or with other analyses (--detector, --no-faces, --no-photos), are refused. \
            A database server that stops answering is tried again, waiting longer each time, for up to 5 minutes. \
            The last worker to finish groups the new faces into people. --status shows the queue: batches done, \
            claimed and by whom, left, failed with why, and each worker's photos a second.
            """)

    @Argument(help: "The folder of photos (with --status, only that folder's indexing is shown).")
    var folder: String?

    @Flag(help: "Show where indexing stands, in the queue that workers share, and index nothing.")
    var status = false

    @Option(
        help: ArgumentHelp(
            "Seconds a worker's claim on a batch lasts unless renewed (renewed every quarter of it).",
            valueName: "seconds"))
    var lease = Catalog.indexingLease

    @Option(
        help: ArgumentHelp(
            "Name the folder the root of this library on this machine: its photos are stored by their paths inside it.",
            valueName: "name"))
    var library: String?

    @Flag(help: "Keep stored files that are gone from the folder.")
    var keepMissing = false

    @Flag(name: .customLong("no-faces"), help: "Do not find faces (those stored stay).")
    var noFaces = false

    @Flag(name: .customLong("no-photos"), help: "Do not print photos (for similar photos and duplicates).")
    var noPhotos = false

    @Option(help: "Batches indexed at once (one a core, 2 to 16).")
    var jobs = Catalog.indexingConcurrency

    @Option(
        help: "Files a batch (at most 64; --jobs × --batch at most 256): analysed together, stored in one transaction.")
    var batch = Catalog.indexingBatch

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var detector: DetectorOption
    @OptionGroup var deviceOptions: DeviceOptions

    func validate() throws {
        guard status || folder != nil else { throw ValidationError("Missing expected argument '<folder>'") }
        guard (1...3600).contains(lease) else { throw ValidationError("--lease must be 1 to 3600 seconds") }
        guard !(noFaces && noPhotos) else { throw ValidationError("--no-faces and --no-photos leave nothing to do") }
        let (mostJobs, mostFiles) = (Catalog.maximumIndexingConcurrency, Catalog.maximumIndexingBatch)
        guard (1...mostJobs).contains(jobs) else {
            throw ValidationError("--jobs must be at least 1 and at most \(mostJobs)")
        }
        guard (1...mostFiles).contains(batch) else {
            throw ValidationError("--batch must be at least 1 and at most \(mostFiles)")
        }
        guard jobs * batch <= Catalog.maximumFilesInFlight else {
            let most = Catalog.maximumFilesInFlight
            throw ValidationError("--jobs × --batch must be at most \(most): their files are held in memory together")
        }
    }

    func run() async throws {
        if status { return try showStatus() }
        guard let folder else { return }
        let store = try database.open(access: .readWrite, create: true), context = try deviceOptions.context()
        let analyses: [any PhotoAnalysis] =
            (noFaces ? [] : [try detector.faces(context: context)])
            + (noPhotos ? [] : [try PhotoPrintAnalysis(context: context)])
        if let library { try await store.setRoot(ofLibrary: library, to: folder) }
        let terminal = isatty(STDERR_FILENO) != 0
        let step = ProgressLines(terminal: terminal)
        let run = try await store.index(
            folder: folder, analyses: analyses, context: context, keepMissing: keepMissing, concurrency: jobs,
            batch: batch, lease: lease
        ) { progress in step.show(progress) }
        step.finish()
        let statistics = try store.statistics()
        print(
            String(
                format: "%@: %d files in %.1f s (%.1f/s): %d indexed, %d unchanged, %d failed",
                FileSystemPath.displayed(folder), run.done, run.elapsed, run.rate, run.indexed, run.unchanged,
                run.failed)
                + (run.done < run.total ? " (of \(run.total) in the folder: other workers did the rest)" : "")
                + (run.upgraded > 0 ? ", \(run.upgraded) completed (embeddings or prints added)" : "")
                + (run.moved > 0 ? ", \(run.moved) moved or renamed (found by their bytes)" : "")
                + (run.removed > 0 ? ", \(run.removed) gone from the folder removed" : ""))
        if let labels = run.removedLabels { print("labels of the removed files' faces saved to \(labels)") }
        print(
            """
            \(database.shown): \(counted(statistics.images, "image")), \(counted(statistics.faces, "face")), \
            \(counted(statistics.printedImages, "photo")) printed, \(counted(statistics.failedImages, "failed file"))
            """
        )
        if !noPhotos, statistics.printedImages > 0 {
            try store.prepareSimilarPhotos(context: try context ?? RenderContext.orDefault(nil, for: .search))
        }
        guard !noFaces else { return }
        if run.endedRun {
            print("people: \(try await store.clusterPeople(context: context))")
        } else {
            print("people: grouped by the worker that finishes the folder")
        }
    }

    /// Prints where indexing stands: each folder's queue, its workers and its failed batches.
    func showStatus() throws {
        let store = try database.open(access: .readOnly)
        let jobs = try store.indexingStatus(folder: folder)
        guard !jobs.isEmpty else {
            print(folder.map { "\(FileSystemPath.displayed($0)): never indexed" } ?? "nothing indexed yet")
            return
        }
        let time = DateFormatter()
        time.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for job in jobs {
            let state =
                switch job.state {
                case "listing": "being listed"
                case "queued": "being indexed"
                case "abandoned": "left unfinished (every worker stopped)"
                default: "finished " + time.string(from: Date(timeIntervalSince1970: job.finished ?? job.started))
                }
            print(
                """
                \(FileSystemPath.displayed(job.folder)): \(state); started \
                \(time.string(from: Date(timeIntervalSince1970: job.started))), \(counted(job.files, "file"))
                """)
            print(
                """
                  batches: \(job.done) done (\(counted(job.filesDone, "file"))), \(job.claimed) claimed, \
                \(job.queued) left, \(job.failed) failed
                """)
            for worker in job.workers {
                print(
                    String(
                        format: "  worker %@%@: %d batches, %d files, %.1f photos/s%@", worker.name,
                        worker.alive ? " (at work)" : "", worker.batches, worker.files, worker.photosPerSecond,
                        worker.holding > 0 ? ", holding \(counted(worker.holding, "batch", "batches"))" : ""))
            }
            for failure in job.failures {
                print("  failed: batch \(failure.batch) (\(counted(failure.files, "file"))): \(failure.reason)")
            }
        }
    }
}

/// Indexing progress on stderr: a line redrawn in place on a terminal, otherwise a plain line every
/// twentieth of the run; failures always get their own line.
final class ProgressLines: Sendable {
    let terminal: Bool

    init(terminal: Bool) {
        self.terminal = terminal
    }

    func show(_ progress: IndexingProgress) {
        if let notice = progress.notice {
            return write((terminal ? "\r\u{1B}[K" : "") + notice + "\n")
        }
        if let file = progress.file, let error = progress.error {
            let line = error.contains(file) ? error : "\(file): \(error)"
            write((terminal ? "\r\u{1B}[K" : "") + "failed: \(FileSystemPath.displayed(line))\n")
        }
        let eta = progress.remaining.map { String(format: "%d:%02d", Int($0) / 60, Int($0) % 60) } ?? "–"
        let line = String(
            format: "%d/%d files  %.1f/s  ETA %@  (%d indexed, %d unchanged, %d failed)", progress.done, progress.total,
            progress.rate, eta, progress.indexed, progress.unchanged, progress.failed)
        if terminal {
            write("\r\u{1B}[K" + line)
        } else if progress.done % max(1, progress.total / 20) == 0 || progress.done == progress.total {
            write(line + "\n")
        }
    }

    func finish() {
        if terminal { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

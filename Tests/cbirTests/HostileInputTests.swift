import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import NeuralNetworks
import PhotoSimilarity
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `cbir` under careless and hostile input: short relative paths, files changed or gone since they were
/// indexed, strips no photo could be, files given as databases, prints that are not numbers, and models that
/// print nothing.
@Suite(.needs(.ukbenchDev)) struct HostileInputTests {
    let cbir: CommandRunner
    /// A scratch folder of the test's own, and in it `photos/` (the first `count` UKBench views) indexed
    /// without faces into `cbir.sqlite`.
    let folder: String
    var photos: String { folder + "/photos" }
    var database: String { folder + "/cbir.sqlite" }

    init() throws {
        cbir = try CommandRunner(product: "cbir")
        folder = temporaryPath("hostile")
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    }

    /// Copies UKBench views `numbers` into the photos folder and indexes it without faces.
    func index(_ numbers: some Sequence<Int>, extra arguments: [String] = []) throws {
        for number in numbers {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let index = try cbir.run(["index", photos, "--db", database, "--no-faces"] + arguments)
        #expect(index.status == 0, "\(index)")
    }

    func path(_ number: Int) -> String { photos + String(format: "/ukbench%05d.jpg", number) }

    /// A file missing under a folder of a short relative name is an error naming the folder, from every
    /// command that reads photos (Foundation's path handling stopped the process on a one-character name);
    /// and no spelling of a path stops it.
    @Test func shortRelativePathsAreErrorsNotCrashes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<4)
        for command in [["similar", "--db", database], ["detect"], ["query", "--db", database]] {
            let output = try cbir.run(command + ["x/none.jpg"], in: folder)
            #expect(output.status == 1 && output.standardError.contains("no such folder: x"), "\(command): \(output)")
        }
        for path in ["", ".", "..", "x/", "/x", "é/none.jpg", "ab/c", "./x/y", "x//", "/"] {
            let output = try cbir.run(["similar", path, "--db", database], in: folder)
            #expect(output.status == 1 && !output.standardError.isEmpty, "\(path.debugDescription): \(output)")
        }
    }

    /// `cbir serve` on a database given by a short relative path serves its photo pages (the missing
    /// gallery file beside it stopped the server, again at each restart); it says the port it listens on
    /// when it chose one, and closes a connection left silent.
    @Test func aServerOnAShortRelativePathServesAndClosesSilentConnections() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<4)
        try FileManager.default.createDirectory(atPath: folder + "/s", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: database, toPath: folder + "/s/x.sqlite")
        let server = Process()
        server.executableURL = cbir.executable
        server.arguments = ["serve", "--db", "s/x.sqlite", "--port", "0", "--idle-timeout", "1"]
        server.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = Pipe()
        server.standardError = errors
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var said = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        while !said.contains("\n"), Date() < deadline, server.isRunning {
            said += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        let port = try #require(said.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(said)")
        #expect(said.hasPrefix("serving s/x.sqlite on http://127.0.0.1:") && port > 0, "\(said)")
        for path in ["/photos/1", "/photos/1", "/api/photos/1/similar"] {
            let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
            let (_, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
        }
        #expect(server.isRunning)
        let silent = try LoopbackConnection(port: port)
        #expect(silent.waitsForClose(within: 10), "a silent connection was kept open")
        let halfSent = try LoopbackConnection(port: port)
        halfSent.send("GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        #expect(halfSent.waitsForClose(within: 10), "a request sent halfway kept its connection open")
    }

    /// `duplicates` never advises keeping a file that is gone or holds other bytes, nor lists the only real
    /// copy as one to remove: such files are left out and named on stderr. An empty database has no groups,
    /// said as JSON; a group of many copies draws a sheet of a few columns.
    @Test func duplicatesAdviseOnlyOnFilesAsIndexed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = try cbir.run(["index", photos, "--db", database, "--no-faces"])
        #expect(empty.status == 0)
        let none = try cbir.run(["duplicates", "--db", database, "--json"])
        #expect(
            none.status == 0 && (try? JSONDecoder().decode([Group].self, from: Data(none.standardOutput.utf8))) == [])
        for copy in 0..<15 {
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/ukbench00000.jpg", toPath: photos + "/copy\(copy).jpg")
        }
        try index([4, 8, 12, 16])
        let sheet = folder + "/sheet.png"
        let first = try groups(["--sheet", sheet])
        #expect(first.count == 1 && first.first?.photos.count == 15, "\(first)")
        let drawn = try ImageDecoder.decode(contentsOf: sheet)
        #expect(drawn.descriptor.width <= 12 * 200, "a sheet \(drawn.descriptor.width) pixels wide")

        let keeper = try #require(first.first?.best)
        try FileManager.default.removeItem(atPath: keeper)
        let afterRemoval = try cbir.run(["duplicates", "--db", database, "--json"])
        let regrouped = try JSONDecoder().decode([Group].self, from: Data(afterRemoval.standardOutput.utf8))
        #expect(regrouped.count == 1 && regrouped.first?.photos.count == 14)
        #expect(!regrouped.flatMap(\.photos).contains { $0.path == keeper })
        #expect(afterRemoval.standardError.contains(keeper) && afterRemoval.standardError.contains("left out"))

        let junk = try #require(regrouped.first?.best)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: junk))
        let text = try cbir.run(["duplicates", "--db", database])
        #expect(text.status == 0 && !text.standardOutput.contains(junk) && !text.standardOutput.contains(keeper))
        #expect(text.standardError.contains("2 photos were left out") && text.standardError.contains("changed"))
    }

    typealias Group = DuplicatesCommandTests.Group

    func groups(_ arguments: [String] = []) throws -> [Group] {
        let output = try cbir.run(["duplicates", "--db", database, "--json"] + arguments)
        #expect(output.status == 0, "\(output)")
        return try JSONDecoder().decode([Group].self, from: Data(output.standardOutput.utf8))
    }

    /// `similar` on an indexed file replaced by another photo prints it as it is now and says the catalog is
    /// stale; files gone since indexing are left out of its answers.
    @Test func similarSeesFilesAsTheyAreNow() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<8)
        try FileManager.default.removeItem(atPath: path(0))
        try FileManager.default.copyItem(atPath: SharedData.root + "/ukbench-dev/ukbench00006.jpg", toPath: path(0))
        try FileManager.default.removeItem(atPath: path(5))
        let output = try cbir.run(["similar", path(0), "--db", database, "--json", "--top", "3"])
        #expect(output.status == 0 && output.standardError.contains("changed since it was indexed"), "\(output)")
        let report = try #require(
            try JSONDecoder().decode([SimilarCommandTests.Report].self, from: Data(output.standardOutput.utf8)).first)
        // Now a view of the second object: its other views come first, the gone one not among them.
        let numbers = report.results.map { Int($0.path.filter(\.isNumber).suffix(5)) ?? -1 }
        #expect(numbers.first == 6 && Set(numbers).isSubset(of: [4, 6, 7]), "\(numbers)")
    }

    /// Files gone that outnumber the answers asked for (a folder moved away) are left out all the same: the
    /// answers are the photos still there, as many as there are.
    @Test func similarLeavesOutMostFilesGone() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<8)
        for gone in 2..<8 { try FileManager.default.removeItem(atPath: path(gone)) }
        let output = try cbir.run(["similar", path(0), "--db", database, "--json", "--top", "3"])
        let report = try #require(
            try JSONDecoder().decode([SimilarCommandTests.Report].self, from: Data(output.standardOutput.utf8)).first)
        #expect(output.status == 0 && Set(report.results.map(\.path)).isSubset(of: [path(0), path(1)]), "\(output)")
        #expect(report.results.contains { $0.path == path(1) }, "\(report.results)")
    }

    /// A strip of 65535 × 1 pixels is refused at its header, naming the file.
    @Test func aStripIsNoPhoto() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<2)
        let strip = folder + "/strip.png"
        try ImageEncoder.write(
            try PixelBuffer(width: 65535, height: 1, values: [UInt8](repeating: 9, count: 65535)), to: strip)
        let output = try cbir.run(["similar", strip, "--db", database])
        #expect(
            output.status == 1 && output.standardError.contains("strip.png") && output.standardError.contains("65535×1")
        )
    }

    /// A photo or a FIFO given as the database is said to be no database, without pointing to a repair.
    @Test func filesThatAreNoDatabaseAreSaidSo() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<1)
        let fifo = folder + "/fifo.sqlite"
        #expect(mkfifo(fifo, 0o644) == 0)
        for (file, words) in [(path(0), "no database"), (fifo, "FIFO")] {
            for command in [["stats"], ["duplicates"], ["check"]] {
                let output = try cbir.run(command + ["--db", file])
                #expect(output.status == 1 && output.standardError.contains(words), "\(command) \(file): \(output)")
                #expect(!output.standardError.contains("--repair"))
            }
        }
    }

    /// `check` finds a stored print that holds values that are not numbers, `check --repair` drops it, and
    /// the next `index` prints the photo again.
    @Test func checkFindsPrintsThatAreNotNumbers() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try index(0..<2)
        let nan = Float.nan.bitPattern
        let poisoned = Data(
            (0..<PhotoPrinter.length).flatMap { _ in withUnsafeBytes(of: nan.littleEndian) { Array($0) } })
        try DatabaseQueue(path: database).write { db in
            try db.execute(
                sql: "UPDATE photo_prints SET print = ? WHERE image_id = (SELECT MIN(image_id) FROM photo_prints)",
                arguments: [poisoned])
        }
        let check = try cbir.run(["check", "--db", database])
        #expect(
            check.status == 1 && check.standardOutput.contains("print holds values that are not numbers"), "\(check)")
        let repair = try cbir.run(["check", "--repair", "--db", database])
        #expect(repair.status == 0 && repair.standardOutput.contains("ukbench00000.jpg"), "\(repair)")
        let index = try cbir.run(["index", photos, "--db", database, "--no-faces"])
        #expect(index.standardOutput.contains("1 completed"), "\(index)")
        let sound = try cbir.run(["check", "--db", database])
        #expect(sound.status == 0 && sound.standardOutput.contains("sound"), "\(sound)")
    }

    /// A print model whose weights are NaN is refused when it is read, naming the file and the tensor; one
    /// whose weights are all zero prints nothing usable, and indexing stops rather than store such prints
    /// or record every photo as failed.
    @Test func modelsThatPrintNothingStoreNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let real = try PyTorchCheckpoint(contentsOf: ModelCache.path(of: PhotoPrinter.modelFile))
        let tensors = real.names.compactMap { name in
            real[name].map { (name: name, shape: $0.shape, values: $0.values) }
        }
        for (poison, words) in [(Float.nan, ["tensor _conv_stem.weight", "finite"]), (0, ["not a direction"])] {
            let models = folder + "/models-\(poison)"
            try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
            for file in try FileManager.default.contentsOfDirectory(atPath: ModelCache.folder) {
                try FileManager.default.createSymbolicLink(
                    atPath: models + "/" + file, withDestinationPath: ModelCache.folder + "/" + file)
            }
            let model = models + "/" + PhotoPrinter.modelFile
            try FileManager.default.removeItem(atPath: model)
            let poisoned = tensors.map { tensor in
                (
                    name: tensor.name, shape: tensor.shape,
                    values: poison.isNaN && tensor.name != "_conv_stem.weight"
                        ? tensor.values : tensor.values.map { _ in poison }
                )
            }
            try Data(CheckpointBuilder(tensors: poisoned).legacy).write(to: URL(fileURLWithPath: model))
            try? FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/ukbench00000.jpg", toPath: path(0))
            let index = try cbir.run(
                ["index", photos, "--db", database, "--no-faces"], environment: ["FACESEARCH_MODELS": models])
            #expect(index.status != 0, "\(poison): \(index)")
            for word in words + [PhotoPrinter.modelFile] {
                #expect(index.standardError.contains(word), "\(poison): \(index.standardError)")
            }
            if FileManager.default.fileExists(atPath: database) {
                let stats = try cbir.run(["stats", "--db", database, "--json"])
                let counts = try JSONDecoder().decode(Counts.self, from: Data(stats.standardOutput.utf8))
                #expect(counts.printedImages == 0 && counts.failedImages == 0, "\(poison): \(stats)")
            }
        }
    }
}

struct Counts: Decodable { let printedImages, failedImages: Int }

/// A TCP connection to a port on loopback, read with a deadline.
struct LoopbackConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw CocoaError(.fileReadUnknown) }
    }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count - 1, 0) }
    }

    /// Whether the server closes the connection within `seconds` (reading nothing, or what it answers first).
    func waitsForClose(within seconds: Int) -> Bool {
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return false }
        }
    }
}

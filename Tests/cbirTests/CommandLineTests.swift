import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// A path in the temporary folder no other test uses.
func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("cbir-\(UUID())-\(name)").path
}

/// The `cbir` tool end to end, as a user runs it.
@Suite(.needs(.wildPhotos, .ukbenchDev)) struct CommandLineTests {
    static let photo = SharedData.root + "/wild-photos/test/obama1.jpg"

    @Test func devicesListsTheCPUAndMarksTheDefault() throws {
        let output = try CommandRunner(product: "cbir").run(["devices"])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("CPU device:"))
        #expect(output.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  * ") }.count == 1)
        // Each kind of work with the device auto gives it, chosen by the timings shown (or forced for all).
        let work = output.standardOutput.split(separator: "\n").drop { !$0.hasPrefix("Work (auto") }.dropFirst()
        #expect(
            work.map { $0.split(separator: " ").first.map(String.init) } == [
                "detection", "blazeface", "describing", "embedding", "search",
            ],
            "\(output.standardOutput)")
        #expect(work.allSatisfy { $0.contains("cpu · ") && (!TestDevices.hasOpenCL || $0.contains(" s;")) }, "\(work)")
        let forced = try CommandRunner(product: "cbir").run(["devices"], environment: ["IMAGEKERNELS_DEVICE": "cpu"])
        #expect(forced.standardOutput.split(separator: "\n").contains { $0.hasPrefix("  * cpu") })
        #expect(forced.standardOutput.contains("Work: all on cpu"))
    }

    /// What a user asks for (help, the version, a completion script) comes on stdout; a usage error on
    /// stderr with exit code 64.
    @Test func helpVersionAndCompletionScripts() throws {
        let cbir = try CommandRunner(product: "cbir")
        let help = try cbir.run(["index", "--help"])
        #expect(
            help.status == 0 && help.standardOutput.contains("USAGE: cbir index") && help.standardError.isEmpty,
            "\(help)")
        let version = try cbir.run(["--version"])
        #expect(version.status == 0 && version.standardOutput.split(separator: ".").count == 3, "\(version)")
        let script = temporaryPath("completion.bash")
        let bash = try cbir.run(["--generate-completion-script", "bash"])
        #expect(bash.status == 0 && bash.standardOutput.hasPrefix("#!/bin/bash"))
        try Data(bash.standardOutput.utf8).write(to: URL(fileURLWithPath: script))
        defer { try? FileManager.default.removeItem(atPath: script) }
        #expect(
            try CommandRunner(executable: URL(fileURLWithPath: "/bin/bash")).run(["-n", script]).status == 0,
            "the script parses")
        // Every command that finds faces takes the same detectors.
        let detectors = try ["detect", "index", "query", "identify"].map { command in
            // The option's help, its lines joined (their width depends on the command's other options).
            let lines = try cbir.run([command, "--help"]).standardOutput.split(separator: "\n").drop {
                !$0.hasPrefix("  --detector <")
            }
            return ([lines.first ?? ""] + lines.dropFirst().prefix { !$0.hasPrefix("  -") })
                .flatMap { $0.split(separator: " ") }.joined(separator: " ")
        }
        #expect(
            Set(detectors).count == 1 && detectors[0].contains("haar, lbp, blazeface, blazeface-short, PATH.xml"),
            "\(detectors)")
        let usage = try cbir.run(["index"])
        #expect(
            usage.status == 64 && usage.standardOutput.isEmpty
                && usage.standardError.contains("Missing expected argument"))
    }

    /// The README's first command on what setup fetched, needing nothing outside the repository: the sample
    /// gallery indexed and searched with the sample probe (Obama) finds a face in every photo and ranks the
    /// five of Obama before Biden.
    @Test func theMainJobOnTheSamplePhotos() throws {
        let cbir = try CommandRunner(product: "cbir")
        let database = temporaryPath("samples.sqlite")
        defer {
            for suffix in ["", "-wal", "-shm", "-lock", "-faces"] {
                try? FileManager.default.removeItem(atPath: database + suffix)
            }
        }
        let index = try cbir.run(["index", SamplePhotos.root + "/gallery", "--db", database])
        #expect(index.status == 0 && index.standardError.contains("6 indexed, 0 unchanged, 0 failed"), "\(index)")
        let query = try cbir.run(["query", SamplePhotos.root + "/probe/obama3.jpg", "--db", database, "--top", "6"])
        let ranked = query.standardOutput.split(separator: "\n").drop { $0 != "images:" }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: "/").last?.split(separator: " ").first }
        #expect(query.status == 0 && ranked.count == 6 && ranked.last == "biden.jpg", "\(query)")
        #expect(ranked.dropLast().allSatisfy { $0.hasPrefix("obama") || $0 == "32bit.png" }, "\(ranked)")

        // Their one pair of copies (32bit.png is obama2.jpg saved as a PNG) is a group, and no photo of Obama is a
        // copy of Biden's, nor, with --similar, another shot of it.
        for similar in [false, true] {
            let output = try cbir.run(["duplicates", "--db", database, "--json"] + (similar ? ["--similar"] : []))
            let groups = try JSONDecoder().decode(
                [DuplicatesCommandTests.Group].self, from: Data(output.standardOutput.utf8)
            )
            .map { Set($0.photos.compactMap { $0.path.split(separator: "/").last.map(String.init) }) }
            #expect(groups.contains { $0.isSuperset(of: ["32bit.png", "obama2.jpg"]) }, "\(groups)")
            #expect(!groups.contains { $0.contains("biden.jpg") }, "--similar \(similar): \(groups)")
            if !similar { #expect(groups == [["32bit.png", "obama2.jpg"]]) }
        }
    }

    /// A first run on a machine (empty kernel cache, no device calibration) says one line about timing its
    /// devices and nothing of the OpenCL compiler; `--verbose` shows each program's build.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here"))
    func aFirstRunIsQuiet() throws {
        let cbir = try CommandRunner(product: "cbir")
        /// `cbir` with the arguments made for a folder of its own, where its kernel cache and calibration start empty.
        func fresh(_ arguments: (String) -> [String]) throws -> CommandRunner.Output {
            let folder = temporaryPath("first-run")
            try FileManager.default.createDirectory(atPath: folder + "/pocl", withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            return try cbir.run(
                arguments(folder),
                environment: [
                    "POCL_CACHE_DIR": folder + "/pocl", "FACESEARCH_CACHE": folder, "IMAGEKERNELS_VERBOSE": "",
                ])
        }
        let detect = try fresh { _ in ["detect", Self.photo, "--device", "opencl"] }
        #expect(detect.status == 0 && !detect.standardError.contains("warning"), "\(detect.standardError)")
        let verbose = try fresh { _ in ["detect", Self.photo, "--device", "opencl", "--verbose"] }
        #expect(verbose.standardError.contains("imagekernels: built Convolution"), "\(verbose.standardError)")
        let index = try fresh { ["index", SharedData.root + "/wild-photos/train/obama", "--db", $0 + "/cbir.sqlite"] }
        let timing = index.standardError.split(separator: "\n").filter { $0.hasPrefix("imagekernels:") }
        #expect(
            index.status == 0 && timing.count == 1 && timing[0].contains("timing each kind of work"),
            "\(index.standardError)")
    }

    @Test func missingOpenCLPlatformFallsBackToTheCPU() throws {
        // The ICD loader reads vendors from OCL_ICD_VENDORS: an empty folder means no platform at all.
        let noVendors = temporaryPath("no-icd")
        try FileManager.default.createDirectory(atPath: noVendors, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: noVendors) }
        let cbir = try CommandRunner(product: "cbir")
        let environment = ["OCL_ICD_VENDORS": noVendors, "IMAGEKERNELS_DEVICE": "auto"]
        let devices = try cbir.run(["devices"], environment: environment)
        #expect(devices.status == 0)
        #expect(devices.standardOutput.contains("OpenCL: no OpenCL platform found"))
        #expect(devices.standardOutput.split(separator: "\n").contains { $0.hasPrefix("  * cpu") })
        #expect(
            devices.standardError.contains("no OpenCL platform found")
                && devices.standardError.contains("using the CPU device"))
        let output = temporaryPath("fallback.png")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let filtered = try cbir.run(
            ["filter", Self.photo, "-o", output, "--lbp", "--size", "200"], environment: environment)
        #expect(filtered.status == 0)
        #expect(filtered.standardOutput.contains("on cpu"))
        let forced = try cbir.run(["filter", Self.photo, "-o", output, "--device", "opencl"], environment: environment)
        #expect(forced.status != 0)
        #expect(forced.standardError.contains("no OpenCL platform found"))
    }

    /// A program the OpenCL device cannot build: the run says so in one line on stderr, goes on on the CPU
    /// device and prints what the CPU device prints. An unknown IMAGEKERNELS_DEVICE is an error that names
    /// the valid choices.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func buildFailureFallsBackWithOneLine() throws {
        let cbir = try CommandRunner(product: "cbir")
        let photo = SharedData.root + "/wild-photos/test/obama_and_biden.jpg"
        let failing = try cbir.run(
            ["detect", photo, "--json", "--detector", "haar", "--device", "opencl"],
            environment: ["IMAGEKERNELS_FAIL_BUILDS": "CascadeEvaluation"])
        let cpu = try cbir.run(["detect", photo, "--json", "--detector", "haar", "--device", "cpu"])
        #expect(failing.status == 0 && cpu.status == 0, "\(failing.standardError)")
        #expect(failing.standardOutput == cpu.standardOutput && failing.standardOutput.contains("\"faces\""))
        let lines = failing.standardError.split(separator: "\n")
        #expect(
            lines.count == 1 && lines.first?.hasPrefix("imagekernels: falling back to the CPU device: ") == true
                && lines.first?.contains("CascadeEvaluation") == true, "\(failing.standardError)")

        let unknown = try cbir.run(["devices"], environment: ["IMAGEKERNELS_DEVICE": "quantum"])
        #expect(
            unknown.status != 0 && unknown.standardError.contains("IMAGEKERNELS_DEVICE=quantum")
                && unknown.standardError.contains("auto, cpu, opencl, gpu"), "\(unknown.standardError)")
    }

    @Test(arguments: ["cpu", "auto"])
    func filterWritesTheChainAndItsStages(_ device: String) throws {
        let final = temporaryPath("lbp.png"), sheet = temporaryPath("stages.png")
        defer {
            for file in [final, sheet] { try? FileManager.default.removeItem(atPath: file) }
        }
        let cbir = try CommandRunner(product: "cbir")
        let chain = ["--gamma", "0.2", "--dog", "1,2", "--equalize", "--lbp", "--size", "300", "--device", device]
        let one = try cbir.run(["filter", Self.photo, "-o", final] + chain)
        #expect(one.status == 0, "\(one.standardError)")
        // obama1.jpg is 1480×832; ≥ 300 px decodes at 1/4, 370×208; LBP trims one pixel per side.
        let codes = try ImageDecoder.decode(contentsOf: final)
        #expect(codes.descriptor == ImageDescriptor(width: 368, height: 206, elementType: .uint8))
        #expect(Set(codes.bytes).count > 100, "LBP codes of a photo use most of the 256 values")
        let all = try cbir.run(["filter", Self.photo, "-o", sheet, "--stages"] + chain)
        #expect(all.status == 0, "\(all.standardError)")
        let stages = try ImageDecoder.decode(contentsOf: sheet)
        #expect(stages.descriptor.width == 4 * 370 + 368 + 4 * 8)
        #expect(stages.descriptor.height == 208)
    }

    @Test func badInputFailsWithTheFileNamed() throws {
        let cbir = try CommandRunner(product: "cbir")
        let empty = temporaryPath("empty.jpg")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let output = try cbir.run(["filter", empty, "-o", temporaryPath("never.png")])
        #expect(output.status != 0)
        #expect(output.standardError.contains(empty) && output.standardError.contains("empty file"))
        let badSigmas = try cbir.run(["filter", Self.photo, "-o", temporaryPath("never.png"), "--dog", "1"])
        #expect(badSigmas.status != 0)
        #expect(badSigmas.standardError.contains("--dog"))
    }

    @Test func detectPrintsDrawsAndWritesJSON() throws {
        let cbir = try CommandRunner(product: "cbir")
        let photo = SharedData.root + "/wild-photos/misc/two_people.jpg"
        let device = TestDevices.hasOpenCL ? "opencl" : "cpu"
        let drawn = temporaryPath("boxes.png")
        defer { try? FileManager.default.removeItem(atPath: drawn) }
        let text = try cbir.run(["detect", photo, "--draw", drawn, "--device", device])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("2 faces in 1126×661"))
        #expect(
            text.standardOutput.components(separatedBy: "° eyes (").count == 3,
            "both faces' eyes: \(text.standardOutput)")
        let boxed = try ImageDecoder.decode(contentsOf: drawn)
        #expect(boxed.descriptor == ImageDescriptor(width: 1126, height: 661, channels: 3, elementType: .uint8))

        let json = try cbir.run(["detect", photo, "--json", "--detector", "lbp", "--device", device])
        #expect(json.status == 0, "\(json.standardError)")
        struct Report: Decodable {
            struct Face: Decodable {
                struct Eyes: Decodable { let left, right: [String: Float] }
                let x, y, width, height, neighbours: Int
                let angle: Float
                let eyes: Eyes?
            }
            let path: String
            let faces: [Face]
        }
        let reports = try JSONDecoder().decode([Report].self, from: Data(json.standardOutput.utf8))
        #expect(reports.count == 1 && reports[0].path == photo && reports[0].faces.count >= 2)
        // Eye points lie inside their face's box.
        for face in reports[0].faces {
            for eye in [face.eyes?.left, face.eyes?.right].compactMap({ $0 }) {
                #expect(eye["x"].map { $0 > Float(face.x) && $0 < Float(face.x + face.width) } == true)
                #expect(eye["y"].map { $0 > Float(face.y) && $0 < Float(face.y + face.height) } == true)
            }
        }

        let badModel = try cbir.run(["detect", photo, "--detector", "/nonexistent/cascade.xml"])
        #expect(badModel.status != 0 && badModel.standardError.contains("/nonexistent/cascade.xml"))
        // `--model`, its old name, still works and says it is deprecated.
        let deprecated = try cbir.run(["detect", photo, "--model", "lbp", "--json", "--device", device])
        #expect(
            deprecated.status == 0 && deprecated.standardOutput == json.standardOutput
                && deprecated.standardError.contains("--model is deprecated; use --detector"), "\(deprecated)")
        let twoDrawn = try cbir.run(["detect", photo, photo, "--draw", drawn])
        #expect(twoDrawn.status != 0 && twoDrawn.standardError.contains("--draw"))
    }

    /// BlazeFace through `cbir detect`: both faces of a group photo with scores, six keypoints inside
    /// their boxes and eyes among them; a missing model names the file and the setup command.
    @Test func detectWithBlazeFace() throws {
        let cbir = try CommandRunner(product: "cbir")
        let photo = SharedData.root + "/wild-photos/test/obama_and_biden.jpg"
        struct Report: Decodable {
            struct Face: Decodable {
                struct Eyes: Decodable { let left, right: [String: Float] }
                let x, y, width, height: Int
                let score: Float
                let eyes: Eyes
                let keypoints: [[String: Float]]
            }
            let faces: [Face]
        }
        // The short-range model is for faces near the camera: on this group photo MediaPipe's finds none either.
        // Tiled, the full-range model also finds the girl in the corner.
        for (options, expected) in [
            ([], 2), (["--detector", "blazeface-short"], 0), (["--detector", "blazeface", "--tile"], 3),
        ] {
            let json = try cbir.run(["detect", photo, "--json"] + options)
            #expect(json.status == 0, "\(json.standardError)")
            let faces = try JSONDecoder().decode([Report].self, from: Data(json.standardOutput.utf8)).first?.faces ?? []
            #expect(faces.count == expected, "\(options): \(json.standardOutput)")
            for face in faces {
                #expect(face.score >= 0.6 && face.keypoints.count == 6)
                #expect(
                    face.keypoints.prefix(2).map { $0["x"] ?? 0 }.sorted()
                        == [face.eyes.left["x"], face.eyes.right["x"]].compactMap { $0 })
                for point in face.keypoints.prefix(4) {
                    #expect((Float(face.x)...Float(face.x + face.width)).contains(point["x"] ?? -1))
                    #expect((Float(face.y)...Float(face.y + face.height)).contains(point["y"] ?? -1))
                }
            }
        }
        let shortTiled = try cbir.run(["detect", photo, "--detector", "blazeface-short", "--tile"])
        #expect(shortTiled.status != 0 && shortTiled.standardError.contains("--tile is for --detector blazeface"))
        let missing = try cbir.run(
            ["detect", photo, "--detector", "blazeface"], environment: ["FACESEARCH_MODELS": "/nonexistent"])
        #expect(
            missing.status != 0
                && missing.standardError.contains("/nonexistent/face_detection_full_range_sparse.tflite")
                && missing.standardError.contains("scripts/setup.sh"))
    }
}

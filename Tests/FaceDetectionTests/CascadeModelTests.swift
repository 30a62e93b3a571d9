import FaceDetection
import Foundation
import Testing

@Suite struct CascadeModelTests {
    /// Counts taken from the file's text, independently of the loader.
    static func occurrences(of tag: String, in path: String) throws -> Int {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.components(separatedBy: tag).count - 1
    }

    static let models: [String] = {
        let manager = FileManager.default
        return [CascadeModel.haarFolder, CascadeModel.lbpFolder].flatMap { folder in
            ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".xml") }.map {
                folder + "/" + $0
            }
        }.sorted()
    }()

    @Test func theDebianFaceAndEyeModelsLoad() throws {
        let haar = try CascadeModel(contentsOf: CascadeModel.frontalFaceHaarPath)
        #expect(haar.featureType == .haar && haar.windowWidth == 24 && haar.windowHeight == 24)
        #expect(haar.stageCount == 25)
        #expect(haar.classifierCount == 2913)
        #expect(haar.featureCount == (try Self.occurrences(of: "<rects>", in: CascadeModel.frontalFaceHaarPath)))
        #expect(!haar.hasTiltedFeatures)

        let lbp = try CascadeModel(contentsOf: CascadeModel.frontalFaceLBPPath)
        #expect(lbp.featureType == .lbp && lbp.windowWidth == 45 && lbp.windowHeight == 45)
        #expect(lbp.stageCount == 19)
        #expect(lbp.nodeSubsets.count == 8 * lbp.nodeFeatures.count)
        #expect(lbp.featureCount == (try Self.occurrences(of: "<rect>", in: CascadeModel.frontalFaceLBPPath)))

        let eye = try CascadeModel(contentsOf: CascadeModel.eyeHaarPath)
        #expect(eye.windowWidth == 20 && eye.stageCount == 24)
    }

    @Test(arguments: models)
    func everyModelLoadsWithCountsMatchingItsFile(_ path: String) throws {
        let internalNodes = try Self.occurrences(of: "<internalNodes>", in: path)
        guard internalNodes > 0 else {
            // OpenCV's old Haar format (no <cascade> element): refused with a clear error.
            #expect(throws: DetectionError.self) { try CascadeModel(contentsOf: path) }
            return
        }
        let model = try CascadeModel(contentsOf: path)
        #expect(model.classifierCount == internalNodes)
        #expect(model.stageCount == (try Self.occurrences(of: "<stageThreshold>", in: path)))
        #expect(model.leaves.count == model.classifierLeafStarts.last.map(Int.init))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        if model.featureType == .haar {
            #expect(model.featureCount == (try Self.occurrences(of: "<rects>", in: path)))
            #expect(
                model.haarTilted.filter { $0 == 1 }.count == text.components(separatedBy: "<tilted>1</tilted>").count
                    - 1)
        }
    }

    @Test func malformedFilesGiveTheTypedError() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CascadeModel.frontalFaceHaarPath)))
        func error(_ bytes: [UInt8]) -> DetectionError? {
            do {
                _ = try CascadeModel(xml: bytes, path: "model.xml")
                return nil
            } catch { return error }
        }
        for cut in [10, original.count / 3, original.count - 40] {
            guard case .malformedModel(let path, _)? = error(Array(original.prefix(cut))) else {
                Issue.record("a file cut at \(cut) bytes was accepted or gave another error")
                continue
            }
            #expect(path == "model.xml")
        }
        let wrongChild = String(decoding: original, as: UTF8.self).replacingOccurrences(
            of: "0 -1 0 -3.1511999666690826e-02", with: "0 7 0 -3.1511999666690826e-02")
        #expect(wrongChild != String(decoding: original, as: UTF8.self))
        guard case .malformedModel(_, let reason)? = error(Array(wrongChild.utf8)) else {
            Issue.record("a child index outside the tree was accepted")
            return
        }
        #expect(reason.contains("outside the tree"))
        #expect(
            error(Array("<opencv_storage><cascade><stageType>BOOST</stageType></cascade></opencv_storage>".utf8)) != nil
        )
        #expect(error(Array("not xml at all".utf8)) != nil)
        #expect(throws: DetectionError.unreadableModel(path: "/nonexistent.xml", reason: "no such file")) {
            try CascadeModel(contentsOf: "/nonexistent.xml")
        }
    }
}

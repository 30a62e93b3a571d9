import ArgumentParser
import ImageCodecs
import ImageKernels

/// `cbir filter`: runs the face preprocessing chain on a photo and writes the result as PNG.
struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Render a filter chain (grayscale → gamma → DoG → equalise → LBP) on an image.",
        discussion: "Stages run in that order; leave any out. Float results are stretched to 0–255 for viewing.")

    @Argument(help: "Input image (JPEG, PNG, PGM/PPM).")
    var input: String

    @Option(name: .shortAndLong, help: "Output PNG.")
    var output: String

    @Option(help: "Gamma exponent, e.g. 0.2.")
    var gamma: Float?

    @Option(help: "Difference of Gaussians σ1,σ2, e.g. 1,2.", transform: FilterCommand.parseSigmas)
    var dog: Sigmas?

    @Flag(help: "Tan–Triggs contrast equalisation.")
    var equalize = false

    @Flag(help: "3×3 local binary pattern codes.")
    var lbp = false

    @Flag(help: "Map LBP codes to the 59 uniform labels (with --lbp).")
    var uniform = false

    @Option(help: "Decode JPEGs DCT-scaled to at least this many pixels on the long side.")
    var size: Int?

    @Flag(help: "Write every stage side by side in one PNG.")
    var stages = false

    @OptionGroup var deviceOptions: DeviceOptions

    struct Sigmas {
        var narrow: Float
        var wide: Float
    }

    static func parseSigmas(_ text: String) throws -> Sigmas {
        let parts = text.split(separator: ",").compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--dog takes two positive numbers: σ1,σ2")
        }
        return Sigmas(narrow: parts[0], wide: parts[1])
    }

    func run() throws {
        let photo = try ImageDecoder.decode(
            contentsOf: input, options: DecodingOptions(grayscale: true, minimumLongSide: size))
        var chain: [(name: String, image: Image)] = [("grayscale", Image(photo))]
        func add(_ name: String, _ make: (Image) -> Image) { chain.append((name, make(chain[chain.count - 1].image))) }
        if let gamma { add("gamma \(gamma)") { $0.gammaAdjusted(gamma) } }
        if let dog {
            add("DoG \(dog.narrow),\(dog.wide)") { $0.differenceOfGaussians(sigma1: dog.narrow, sigma2: dog.wide) }
        }
        if equalize { add("equalised") { $0.contrastEqualized() } }
        if lbp { add(uniform ? "LBP uniform" : "LBP") { $0.localBinaryPattern(uniform: uniform) } }

        let context = try deviceOptions.context() ?? RenderContext()
        let images = stages ? chain.map(\.image) : [chain[chain.count - 1].image]
        let rendered = try context.render(images).map(StageSheet.viewable)
        let result = stages ? try StageSheet.sideBySide(rendered) : rendered[0]
        try ImageEncoder.write(result, to: output)
        let shape = rendered[rendered.count - 1].descriptor
        print(
            """
            \(output): \(chain.map(\.name).joined(separator: " → ")) on \(context.device), \
            \(shape.width)×\(shape.height)\(stages ? ", \(chain.count) stages" : "")
            """
        )
    }
}

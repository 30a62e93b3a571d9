import BenchmarkSupport
import FaceRecognition
import ImageKernels

/// One rank-1 figure: the share of probes whose nearest image (person) is their own.
struct AccuracyRow: Encodable {
    let dataset: String
    let `protocol`: String
    let matcher: String
    let config: String
    let rank1: Double
}

/// Rank-1 identification on a folder of people: the first K images of each person form the gallery,
/// the rest are probes. Each person's gallery faces share one image identifier, so the image-level
/// matchers pool a person's faces (NBNN's image-to-class distance) and every matcher names a person.
struct AccuracyBenchmark {
    let set: FaceSet
    let context: RenderContext
    let protocols: [Int]
    let quick: Bool

    struct Configuration {
        let name: String
        let parameters: DescriptorParameters
        let weights: WeightMap
    }

    var configurations: [Configuration] {
        let standard = DescriptorParameters.standard
        func with(_ change: (inout DescriptorParameters) -> Void) -> DescriptorParameters {
            var copy = standard
            change(&copy)
            return copy
        }
        let first = Configuration(name: "standard: LBP(8,2), 256 bins, 8×8", parameters: standard, weights: .uniform())
        if quick { return [first] }
        return [
            first,
            Configuration(name: "+ gamma 0.2", parameters: with { $0.gamma = 0.2 }, weights: .uniform()),
            Configuration(name: "+ DoG σ1–2", parameters: with { $0.sigmas = [1, 2] }, weights: .uniform()),
            Configuration(name: "+ Tan–Triggs", parameters: with { $0.equalizes = true }, weights: .uniform()),
            Configuration(
                name: "+ gamma, DoG, Tan–Triggs",
                parameters: with {
                    $0.gamma = 0.2
                    $0.sigmas = [1, 2]
                    $0.equalizes = true
                },
                weights: .uniform()),
            Configuration(name: "59 bins", parameters: with { $0.uniform = true }, weights: .uniform()),
            Configuration(
                name: "10×10 grid",
                parameters: with {
                    $0.gridColumns = 10
                    $0.gridRows = 10
                },
                weights: .uniform(columns: 10, rows: 10)),
            Configuration(
                name: "59 bins, 10×10 grid",
                parameters: with {
                    $0.uniform = true
                    $0.gridColumns = 10
                    $0.gridRows = 10
                },
                weights: .uniform(columns: 10, rows: 10)),
            Configuration(name: "basic 3×3 LBP", parameters: with { $0.pattern = .basic }, weights: .uniform()),
            Configuration(
                name: "LBP(8,1), as OpenCV's LBPH",
                parameters: with { $0.pattern = .circular(neighbours: 8, radius: 1) },
                weights: .uniform()),
            Configuration(name: "reference 8×8 weights", parameters: standard, weights: .reference),
            Configuration(
                name: "Tan–Triggs preset (basic LBP, γ, DoG, TT)", parameters: .tanTriggs, weights: .uniform()),
        ]
    }

    func run() throws -> [AccuracyRow] {
        var rows: [AccuracyRow] = []
        for configuration in configurations {
            progress("accuracy on \(set.name): \(configuration.name)")
            let describer = try FaceDescriber(parameters: configuration.parameters, context: context)
            let descriptors = try set.people.map { try describer.describe($0.images) }
            for galleryPerPerson in protocols {
                let gallery = Gallery(parameters: configuration.parameters, context: context)
                var probes: [(descriptor: FaceDescriptor, person: Int)] = []
                var faceID: Int64 = 0
                for (person, faces) in descriptors.enumerated() {
                    for (index, descriptor) in faces.enumerated() {
                        if index < galleryPerPerson {
                            try gallery.append(descriptor, face: FaceID(faceID), image: ImageID(Int64(person)))
                            faceID += 1
                        } else {
                            probes.append((descriptor, person))
                        }
                    }
                }
                let name =
                    "\(galleryPerPerson)/\(set.people.map(\.images.count).max().map { $0 - galleryPerPerson } ?? 0)"
                // Every LBP matcher, and NBNN in neighbourhoods of radius 1 and 2 (radius 0 is rnbnn, no radius nbnn).
                let variants = Matcher.descriptorMatchers.map { ($0, nil as Int?) } + [(Matcher.nbnn, 1), (.nbnn, 2)]
                for (matcher, radius) in variants {
                    var correct = 0
                    for probe in probes {
                        var top = TopImages(1)
                        try gallery.search(
                            probe.descriptor,
                            options: SearchOptions(
                                matcher: matcher, weights: configuration.weights,
                                radius: radius),
                            into: &top)
                        if top.matches.first?.image == ImageID(Int64(probe.person)) { correct += 1 }
                    }
                    rows.append(
                        AccuracyRow(
                            dataset: set.name, protocol: name,
                            matcher: matcher.rawValue + (radius.map { " r=\($0)" } ?? ""),
                            config: configuration.name, rank1: Double(correct) / Double(max(probes.count, 1))))
                }
            }
        }
        return rows
    }
}

// swift-tools-version: 6.1
// Targets grouped: system libraries · framework · face recognition and detection · database · tools · tests
import Foundation
import PackageDescription

let package = Package(
    name: "FaceSearch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ImageKernels", targets: ["ImageKernels"]),
        .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
        .library(name: "NeuralNetworks", targets: ["NeuralNetworks"]),
        .library(name: "FaceRecognition", targets: ["FaceRecognition"]),
        .library(name: "FaceDetection", targets: ["FaceDetection"]),
        .library(name: "PhotoSimilarity", targets: ["PhotoSimilarity"]),
        .library(name: "Catalog", targets: ["Catalog"]),
        .executable(name: "cbir", targets: ["cbir"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Without Hummingbird's default trait ConfigurationSupport: the server takes no swift-configuration
        // settings, and building that package cost CI's build time for nothing.
        .package(
            url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries
        .systemLibrary(
            name: "COpenCL", pkgConfig: "OpenCL",
            providers: [.apt(["ocl-icd-opencl-dev", "pocl-opencl-icd"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),

        // Framework
        // Each module embeds its own OpenCL C sources, every .cl file of Kernels/<Module>/, through a target only
        // it uses, which the EmbedKernels plugin fills.
        .executableTarget(name: "embed-kernels", path: "Plugins/embed-kernels"),
        .plugin(name: "EmbedKernels", capability: .buildTool(), dependencies: ["embed-kernels"]),
        .target(name: "ImageKernelsCL", path: "Kernels/ImageKernels", plugins: ["EmbedKernels"]),
        .target(name: "CPUCacheHints"),
        .target(name: "ImageKernels", dependencies: ["COpenCL", "ImageKernelsCL", "CPUCacheHints"]),
        .target(name: "ImageCodecs", dependencies: ["ImageKernels", "CTurboJPEG", "CPNG", "CDeflate"]),

        // Neural networks: tensor layers as filters, networks with resident weights, model readers
        .target(name: "NeuralNetworksCL", path: "Kernels/NeuralNetworks", plugins: ["EmbedKernels"]),
        .target(name: "NeuralNetworks", dependencies: ["ImageKernels", "NeuralNetworksCL"]),

        // Face recognition and detection
        .target(name: "FaceRecognitionCL", path: "Kernels/FaceRecognition", plugins: ["EmbedKernels"]),
        .target(
            name: "FaceRecognition",
            dependencies: ["ImageKernels", "NeuralNetworks", "FaceDetection", "FaceRecognitionCL"]),
        .target(name: "FaceDetectionCL", path: "Kernels/FaceDetection", plugins: ["EmbedKernels"]),
        .target(name: "FaceDetection", dependencies: ["ImageKernels", "NeuralNetworks", "FaceDetectionCL"]),

        // Photo similarity: prints, perceptual hashes, similar photos and near-duplicate groups
        .target(name: "PhotoSimilarityCL", path: "Kernels/PhotoSimilarity", plugins: ["EmbedKernels"]),
        .target(
            name: "PhotoSimilarity",
            dependencies: ["ImageKernels", "NeuralNetworks", "FaceRecognition", "PhotoSimilarityCL"]),

        // Database
        .target(
            name: "Catalog",
            dependencies: [
                "NeuralNetworks",
                "ImageKernels", "ImageCodecs", "FaceRecognition", "FaceDetection", "PhotoSimilarity",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Web page and JSON API over the catalog (`cbir serve`): pages' templates, styles and script embedded
        .target(
            name: "CatalogServer",
            dependencies: [
                "Catalog", "ImageKernels", "ImageCodecs", "FaceDetection", "FaceRecognition", "PhotoSimilarity",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ], resources: [.embedInCode("Assets")]),

        // Tools
        .executableTarget(
            name: "cbir",
            dependencies: [
                "ImageKernels", "ImageCodecs", "FaceDetection", "FaceRecognition", "Catalog", "PhotoSimilarity",
                "CatalogServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                "ImageKernels", "ImageCodecs", "FaceDetection", "FaceRecognition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/BenchmarkSupport"),
        .executableTarget(
            name: "filter-bench",
            dependencies: [
                "ImageKernels", "ImageCodecs", "ReferenceFilters", "BenchmarkSupport",
            ], path: "Benchmarks/filter-bench"),
        .executableTarget(
            name: "detect-bench",
            dependencies: [
                "ImageKernels", "ImageCodecs", "FaceDetection", "BenchmarkSupport",
            ], path: "Benchmarks/detect-bench", exclude: ["opencv-reference.py", "faces.json"]),
        .executableTarget(
            name: "index-bench",
            dependencies: [
                "Catalog", "FaceDetection", "FaceRecognition", "ImageCodecs", "ImageKernels", "BenchmarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Benchmarks/index-bench"),
        .executableTarget(
            name: "vector-bench",
            dependencies: [
                "Catalog", "FaceRecognition", "ImageKernels", "BenchmarkSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ], path: "Benchmarks/vector-bench"),
        .executableTarget(
            name: "cluster-bench",
            dependencies: [
                "FaceRecognition", "FaceDetection", "ImageKernels", "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/cluster-bench"),
        .executableTarget(
            name: "photo-bench",
            dependencies: [
                "PhotoSimilarity", "ImageCodecs", "ImageKernels", "NeuralNetworks", "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/photo-bench", exclude: ["search-latency.sh"]),
        .executableTarget(
            name: "word-bench",
            dependencies: [
                "PhotoSimilarity", "ImageCodecs", "ImageKernels", "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/word-bench"),
        .executableTarget(
            name: "cleanup-bench",
            dependencies: [
                "Catalog", "ImageCodecs", "ImageKernels", "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/cleanup-bench"),
        .executableTarget(
            name: "roofline-bench",
            dependencies: [
                "NeuralNetworks", "PhotoSimilarity", "FaceDetection", "FaceRecognition", "ImageCodecs", "ImageKernels",
                "BenchmarkSupport",
            ], path: "Benchmarks/roofline-bench"),
        .executableTarget(
            name: "nbnn-bench",
            dependencies: [
                "ImageKernels", "ImageCodecs", "FaceRecognition", "FaceDetection", "NeuralNetworks", "ReferenceFilters",
                "BenchmarkSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Benchmarks/nbnn-bench"),

        // Tests. ReferenceFilters, the plain-Swift oracles, is also the benchmarks' baseline; BenchmarkSupport holds
        // what benchmarks and tests both need (seeded random numbers, folders of faces, clustering quality).
        .target(
            name: "ReferenceFilters", dependencies: ["ImageKernels", "FaceRecognition"],
            path: "Tests/ReferenceFilters"),
        .target(
            name: "TestSupport", dependencies: ["ImageKernels", "ReferenceFilters", "BenchmarkSupport"],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "ImageKernelsTests",
            dependencies: ["ImageKernels", "ReferenceFilters", "TestSupport", "BenchmarkSupport"]),
        .testTarget(
            name: "NeuralNetworksTests",
            dependencies: ["NeuralNetworks", "ImageKernels", "ImageCodecs", "TestSupport", "BenchmarkSupport"]),
        .testTarget(
            name: "ImageCodecsTests", dependencies: ["ImageCodecs", "ImageKernels", "TestSupport", "BenchmarkSupport"]),
        .testTarget(
            name: "FaceDetectionTests",
            dependencies: [
                "FaceDetection", "FaceRecognition", "ImageCodecs", "ImageKernels", "TestSupport", "BenchmarkSupport",
            ]),
        .testTarget(
            name: "FaceRecognitionTests",
            dependencies: [
                "FaceRecognition", "FaceDetection", "ImageKernels", "ImageCodecs", "ReferenceFilters", "TestSupport",
                "BenchmarkSupport",
            ]),
        .testTarget(
            name: "PhotoSimilarityTests",
            dependencies: [
                "PhotoSimilarity", "NeuralNetworks", "ImageCodecs", "ImageKernels", "ReferenceFilters", "TestSupport",
                "BenchmarkSupport",
            ]),
        .testTarget(
            name: "cbirTests",
            dependencies: [
                "cbir", "ImageCodecs", "ImageKernels", "NeuralNetworks", "PhotoSimilarity", "TestSupport",
                "BenchmarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: [
                "CatalogServer", "Catalog", "ImageCodecs", "ImageKernels", "PhotoSimilarity", "NeuralNetworks",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CatalogTests",
            dependencies: [
                "Catalog", "FaceRecognition", "PhotoSimilarity", "NeuralNetworks", "ImageCodecs", "ImageKernels",
                "TestSupport",
                "BenchmarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
    ]
)

// Fuzz targets for the image decoders, only when scripts/fuzz.sh builds them (FACESEARCH_FUZZ=1) with
// -sanitize=fuzzer: they call libFuzzer's driver, which a normal build does not link.
if Context.environment["FACESEARCH_FUZZ"] == "1" {
    package.targets +=
        [
            .systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"),
            .target(
                name: "DecoderFuzzing", dependencies: ["CLibFuzzer", "ImageCodecs", "ImageKernels"],
                path: "Tests/Fuzz/DecoderFuzzing"),
        ]
        + ["jpeg", "png", "pnm", "exif"].map {
            .executableTarget(name: "fuzz-\($0)", dependencies: ["DecoderFuzzing"], path: "Tests/Fuzz/fuzz-\($0)")
        }
}

// Where this machine has AVX2 and FMA (every x86-64 server and desktop processor since 2013–2015) and this
// package is the one being built (SwiftPM refuses unsafe flags in dependencies), its Swift code is built for
// them: the CPU twins' SIMD8 vectors fill one AVX register instead of two SSE ones (figures in
// Benchmarks/RESULTS.md; device calibrations are kept per build). Where it also has AVX-512 (Skylake-SP and
// later Xeons, Zen 4), the build is for that, and the convolutions' products use 512-bit register tiles.
// FACESEARCH_PORTABLE=1 builds for any x86-64 processor, FACESEARCH_AVX512=0 for AVX2 where there is AVX-512.
let hostProcessorFlags: [SwiftSetting] = {
    #if arch(x86_64) && os(Linux)
        let haswell: Set<Substring> = [
            "avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe", "popcnt", "sse4_2", "xsave",
        ]
        let skylakeAVX512 = haswell.union(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])
        guard Context.environment["FACESEARCH_PORTABLE"] != "1", !Context.packageDirectory.contains("/checkouts/"),
            let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
            case let flags = Set(line.split(separator: " ")), haswell.isSubset(of: flags)
        else { return [] }
        guard skylakeAVX512.isSubset(of: flags), Context.environment["FACESEARCH_AVX512"] != "0" else {
            return [.unsafeFlags(["-target-cpu", "haswell"]), .define("FACESEARCH_AVX2")]
        }
        return [
            .unsafeFlags(["-target-cpu", "skylake-avx512"]), .define("FACESEARCH_AVX2"), .define("FACESEARCH_AVX512"),
        ]
    #else
        return []
    #endif
}()
for target in package.targets where ![.system, .plugin].contains(target.type) {
    target.swiftSettings = (target.swiftSettings ?? []) + hostProcessorFlags
}

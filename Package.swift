// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "FaceSearch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ImageKernels", targets: ["ImageKernels"]),
        .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
        .executable(name: "cbir", targets: ["cbir"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System libraries
        .systemLibrary(name: "COpenCL", pkgConfig: "OpenCL",
                       providers: [.apt(["ocl-icd-opencl-dev", "pocl-opencl-icd"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),

        // Framework
        .target(name: "Kernels", path: "Kernels",
                resources: [
                    .embedInCode("ElementConversion.cl"),
                    .embedInCode("Grayscale.cl"),
                    .embedInCode("GammaAdjust.cl"),
                    .embedInCode("GaussianBlur.cl"),
                    .embedInCode("DifferenceOfGaussians.cl"),
                    .embedInCode("ContrastEqualization.cl"),
                    .embedInCode("LocalBinaryPattern.cl"),
                    .embedInCode("Crop.cl"),
                    .embedInCode("AffineWarp.cl"),
                    .embedInCode("Resize.cl"),
                    .embedInCode("BlockHistogram.cl"),
                ]),
        .target(name: "ImageKernels", dependencies: ["COpenCL", "Kernels"]),
        .target(name: "ReferenceFilters", dependencies: ["ImageKernels"]),
        .target(name: "ImageCodecs", dependencies: ["ImageKernels", "CTurboJPEG", "CPNG"]),

        // Tools
        .executableTarget(name: "cbir", dependencies: [
            "ImageKernels", "ImageCodecs",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "filter-bench", dependencies: [
            "ImageKernels", "ImageCodecs", "ReferenceFilters",
        ], path: "Benchmarks/filter-bench"),

        // Tests
        .target(name: "TestSupport", dependencies: ["ImageKernels", "ReferenceFilters"],
                path: "Tests/TestSupport"),
        .testTarget(name: "ImageKernelsTests", dependencies: ["ImageKernels", "ReferenceFilters", "TestSupport"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "ImageKernels", "TestSupport"]),
        .testTarget(name: "cbirTests", dependencies: ["cbir", "ImageCodecs", "ImageKernels", "TestSupport"]),
    ]
)

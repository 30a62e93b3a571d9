import ImageKernels
import TestSupport
import Testing

/// Every kernel of ImageKernels agrees with its `.cl` file; the parser reads what the checks rely on.
@Suite struct KernelSignatureTests {
    @Test func everyKernelMatchesItsSource() throws {
        let problems = try KernelSourceChecks.problems(module: "ImageKernels", kernels: ImageKernelsLibrary.kernels)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func sourcesAreReadAsOpenCLCReadsThem() throws {
        let source = """
            // __kernel void commented(int a) {}
            /* __kernel void alsoCommented(int b) {} */
            __kernel void first(__global const PIXEL* src, __global float *dst, __constant int* table,
                                __local float* scratch, int count, float scale) { }
            __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void third(int n) { }
            void helper_kernel (int notAKernel) { }
            #if VECTOR_WIDTH == 8
            kernel void second(global uint* values, uint total) { }
            #else
            kernel void second(global uint* values, uint total) { }
            #endif
            """
        let functions = try KernelSignature.functions(in: source, options: "-DPIXEL=uchar -DOTHER")
        #expect(Set(functions.keys) == ["first", "second", "third"])
        #expect(
            functions["first"]?.map(\.description) == [
                "__global const uchar* src", "__global float* dst",
                "__constant int* table", "__local float* scratch", "int count",
                "float scale",
            ])
        #expect(functions["second"]?.map(\.description) == ["__global uint* values", "uint total"])
        #expect(throws: RenderError.self) {
            try KernelSignature.functions(in: "kernel void twice(int a) {}\nkernel void twice(float a) {}")
        }
    }

    @Test func argumentStructsReadInDeclarationOrder() throws {
        struct Arguments: KernelArguments {
            var input: KernelBuffer<UInt8>
            var output: KernelMutableBuffer<Float>
            var table: [Int32]
            var scratch: KernelLocal<Float>
            var count: Int32
            var total: UInt32
            var scale: Float
        }
        #expect(
            try KernelSignature.parameters(of: Arguments.self).map(\.description) == [
                "__global const uchar* input", "__global float* output", "__constant int* table",
                "__local float* scratch",
                "int count", "uint total", "float scale",
            ])
        struct Wrong: KernelArguments {
            var count: Int
        }
        #expect(throws: RenderError.self) { try KernelSignature.parameters(of: Wrong.self) }
    }
}

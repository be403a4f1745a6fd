import Foundation
#if canImport(CoreML) && !os(watchOS)
import CoreML
#endif

/// What Core ML compiles after verification (and unpacking) when the app set no
/// ``ModelPreparer`` of its own (SPEC §13.1): a `.mlmodel` file, or an unpacked archive whose
/// top level is one `.mlpackage`. The result is `models/<id>/model.mlmodelc`, the prepared path.
/// Elsewhere (Linux, and watchOS, which has no on-device compiler) nothing is compiled. No `#available`: the package's minimum platforms
/// (SPEC §13.1: iOS 16, macOS 13, …) are those of `MLModel.compileModel(at:) async`.
enum CoreMLPreparation {
    static func prepare(_ release: ReleaseDocument, staging: URL) async throws {
        #if canImport(CoreML) && !os(watchOS)
        let source: URL
        if release.fileExtension == "mlmodel" {
            source = staging.appendingPathComponent("model.mlmodel")
        } else {
            let unpacked = staging.appendingPathComponent(ModelUnpacker.directoryName)
            let top = (try? FileManager.default.contentsOfDirectory(atPath: unpacked.path)) ?? []  // not unpacked: nothing to compile
            guard top.count == 1, let package = top.first, package.hasSuffix(".mlpackage") else { return }
            source = unpacked.appendingPathComponent(package)
        }
        try await CoreMLCompiler().prepare(model: source, into: staging)
        #endif
    }
}

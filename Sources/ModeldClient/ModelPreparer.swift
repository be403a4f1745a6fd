import Foundation
#if canImport(CoreML) && !os(watchOS)
import CoreML
#endif

/// An optional step between verification and activation, e.g. compiling a Core ML model on the
/// device. It runs in the staging directory of the new model; if it throws, nothing is installed.
public protocol ModelPreparer: Sendable {
    /// - Parameters:
    ///   - model: the verified model file.
    ///   - directory: the staging directory that becomes `models/<id>/`; put derived files here.
    func prepare(model: URL, into directory: URL) async throws
}

// watchOS has Core ML but not `MLModel.compileModel(at:)` (SPEC §13.2): a watch app ships its
// models compiled (`.mlmodelc` in a zip, which the client unpacks), and this type is not there.
#if canImport(CoreML) && !os(watchOS)
/// Compiles a downloaded `.mlmodel` / `.mlpackage` on device into `model.mlmodelc` beside it
/// (not on watchOS, which cannot compile on device).
@available(iOS 16, macOS 13, tvOS 16, visionOS 1, *)
public struct CoreMLCompiler: ModelPreparer {
    public init() {}

    public func prepare(model: URL, into directory: URL) async throws {
        let compiled = try await MLModel.compileModel(at: model)
        try FileManager.default.moveItem(at: compiled, to: directory.appendingPathComponent("model.mlmodelc"))
    }
}
#endif

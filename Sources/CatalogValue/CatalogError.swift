/// A catalog failure as a value: a stable `code` the server maps to an HTTP status (SPEC §10),
/// the offending parameter when there is one, and a message an operator can act on.
public struct CatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidParameter = "invalid_parameter"   // 400
        case idInUse = "id_in_use"                     // 409
        case retired = "retired"                       // 409
        case experimentRunning = "experiment_running"  // 409: another running guard covers the same clients
        case baseURLMismatch = "base_url_mismatch"     // 409: the writer's public_base_url is not the catalog's
        case conflict = "conflict"                     // 409: the change was based on a revision the release no longer has
        case notFound = "not_found"                    // 404
        case sha256Mismatch = "sha256_mismatch"        // 422
        case insufficientStorage = "insufficient_storage" // 507
        case corruptCatalog = "corrupt_catalog"        // refused on load/reload (logged, old kept)
        case io = "io_error"                           // any other file-system failure (500)
    }

    public let code: Code
    public let parameter: String?
    public let message: String

    public init(_ code: Code, parameter: String? = nil, _ message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    /// The SPEC §10 status for this code (the route owns the JSON error body).
    public var httpStatus: Int {
        switch code {
        case .invalidParameter: return 400
        case .notFound: return 404
        case .idInUse, .retired, .experimentRunning, .baseURLMismatch, .conflict: return 409
        case .sha256Mismatch: return 422
        case .insufficientStorage: return 507
        case .corruptCatalog, .io: return 500
        }
    }

    public var description: String {
        if let parameter { return "\(code.rawValue): \(parameter): \(message)" }
        return "\(code.rawValue): \(message)"
    }

    package static func invalid(_ parameter: String, _ message: String) -> CatalogError {
        CatalogError(.invalidParameter, parameter: parameter, message)
    }

    /// A shared selection rule's failure (ReleaseSelection) as `invalid_parameter`.
    public init(_ input: InvalidInput) {
        self.init(.invalidParameter, parameter: input.parameter, input.message)
    }

    /// Runs a shared validator, reporting its failure as `invalid_parameter`.
    package static func catching<T>(_ body: () throws(InvalidInput) -> T) throws(CatalogError) -> T {
        do throws(InvalidInput) { return try body() } catch { throw CatalogError(error) }
    }
}

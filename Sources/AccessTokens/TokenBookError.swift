/// Why a token change or the file was refused, with the SPEC §10 code it is answered with.
public struct TokenBookError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// 400 `invalid_parameter`
        case invalid
        /// 409 `id_in_use`
        case nameInUse
        /// 404 `not_found`
        case notFound
        /// tokens.json cannot be read, parsed or written (503 `unavailable`).
        case storage
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public var httpStatus: Int {
        switch kind {
        case .invalid: 400
        case .nameInUse: 409
        case .notFound: 404
        case .storage: 503
        }
    }

    public var code: String {
        switch kind {
        case .invalid: "invalid_parameter"
        case .nameInUse: "id_in_use"
        case .notFound: "not_found"
        case .storage: "unavailable"
        }
    }
}

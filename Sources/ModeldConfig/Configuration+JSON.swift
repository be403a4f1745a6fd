// The config file as a JSON tree, so that unknown keys and wrong types can be named
// (JSONSerialization is not in FoundationEssentials; a Decodable tree is).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum ConfigurationJSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([ConfigurationJSON])
    case object([String: ConfigurationJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Probing the JSON type: each failed decode only means "not this type".
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigurationJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ConfigurationJSON].self))
        }
    }

    /// The top-level object of a config file, or a reason it is not one.
    static func parseObject(_ bytes: [UInt8]) throws(ConfigurationValueError) -> [String: ConfigurationJSON] {
        let tree: ConfigurationJSON
        do {
            tree = try JSONDecoder().decode(ConfigurationJSON.self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            let cause = context.underlyingError.map { " (\($0))" } ?? ""
            throw ConfigurationValueError("invalid JSON: \(context.debugDescription)\(cause)")
        } catch {
            throw ConfigurationValueError("invalid JSON: \(error)")
        }
        guard case .object(let object) = tree else {
            throw ConfigurationValueError("expected a JSON object at the top level")
        }
        return object
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why one value was refused; the loader adds which key, env var or flag it came from.
struct ConfigurationValueError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

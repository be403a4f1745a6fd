/// An access key pair (plus a session token for temporary credentials). Never printed: its
/// description hides the secret so it cannot leak into logs or error messages.
public struct Credentials: Sendable, Equatable, CustomStringConvertible {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "Credentials(\(accessKeyID), secret hidden)" }

    /// From `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; nil when the
    /// first two are not both set.
    public static func fromEnvironment(_ environment: [String: String]) -> Credentials? {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token)
    }

    /// A profile of an AWS CLI credentials file (`[default]`, `key = value`, `#`/`;` comments).
    /// `source` names the file in error messages.
    public static func fromINI(_ text: String, profile: String, source: String) throws(S3Error) -> Credentials {
        var current: String?
        var values: [String: String] = [:]
        var found = false
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw S3Error.usage("\(source):\(index + 1): malformed section header") }
                current = String(line.dropFirst().dropLast()).trimmingSpaces
                if current == profile { found = true }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw S3Error.usage("\(source):\(index + 1): expected key = value")
            }
            if current == profile {
                values[line[..<equals].trimmingSpaces.lowercased()] = line[line.index(after: equals)...].trimmingSpaces
            }
        }
        guard found else { throw S3Error.usage("\(source): no profile [\(profile)]") }
        guard let key = values["aws_access_key_id"], !key.isEmpty,
              let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw S3Error.usage("\(source): profile [\(profile)] lacks aws_access_key_id or aws_secret_access_key")
        }
        let token = values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token)
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}

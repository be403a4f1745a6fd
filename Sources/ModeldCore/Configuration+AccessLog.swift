// Configuration → AccessLogWriter destination.
import ModeldConfig

extension Configuration {
    /// Where the access log goes; nil when `access_log` is "off".
    public var accessLogDestination: AccessLogWriter.Destination? {
        switch accessLog {
        case .off: nil
        case .stdout: .stdout
        case .file(let path): .file(path: path, maxBytes: accessLogMaxBytes, keep: accessLogKeep)
        }
    }
}

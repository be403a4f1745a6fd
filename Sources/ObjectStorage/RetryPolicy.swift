/// Which failures are worth another attempt, and how long to wait before it: exponential
/// backoff with full jitter (AWS's advice), capped, for a bounded number of attempts.
public struct RetryPolicy: Sendable, Equatable {
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 5, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(20)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// 5xx, 429 and transport failures are transient; a 200-with-error from Complete is
    /// retried only for the codes AWS names as transient (InternalError, SlowDown).
    public static func isRetryable(_ error: S3Error) -> Bool {
        switch error {
        case .transport: true
        case .service(let failure):
            failure.status >= 500 || failure.status == 429 || ["InternalError", "SlowDown", "ServiceUnavailable", "RequestTimeout"].contains(failure.code)
        case .usage, .invalidResponse, .local: false
        }
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1), given a uniform random
    /// fraction in [0, 1) so tests can pin it.
    public func delay(afterAttempt attempt: Int, random fraction: Double) -> Duration {
        let exponent = min(attempt - 1, 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * fraction
    }
}

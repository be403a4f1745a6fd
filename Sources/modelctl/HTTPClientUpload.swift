import CurlTransport

/// A request body produced while it is sent, so it goes out chunked (see CurlUploadSource);
/// modelctl's sources fail with a CLIFailure that HTTPClient reports as it is.
typealias UploadSource = CurlUploadSource

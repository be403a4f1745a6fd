import HTTPServer
import HTTPWire
import ModelCatalog

/// Streams an upload body into an `UploadWriter` (hashing on the fly), then hands the fsync,
/// rename and catalog change to a blocking-work thread and completes the exchange from there.
/// Writes land in the page cache and cost microseconds per chunk, so they stay on the loop; the
/// slow parts (fsync, publish lock) never do.
final class UploadSink: BodySink {
    private let writer: UploadWriter
    private let exchange: Exchange
    private let maxBytes: Int64
    private let headerSHA256: String?
    private let finish: @Sendable (Result<FinishedUpload, CatalogError>) -> Void
    private var failed = false

    init(writer: UploadWriter, exchange: Exchange, maxBytes: Int64, headerSHA256: String?,
         finish: @escaping @Sendable (Result<FinishedUpload, CatalogError>) -> Void) {
        self.writer = writer
        self.exchange = exchange
        self.maxBytes = maxBytes
        self.headerSHA256 = headerSHA256
        self.finish = finish
    }

    func bodyBytes(_ buffer: UnsafeRawBufferPointer) -> BodyFlow {
        guard !failed else { return .more }
        if writer.size + Int64(buffer.count) > maxBytes {
            fail(Response.error(413, "body_too_large", "upload exceeds max_upload_bytes (\(maxBytes))"))
            return .more
        }
        do throws(CatalogError) {
            try writer.write(buffer)
        } catch {
            fail(AdminResponder.errorResponse(error))
        }
        return .more
    }

    func bodyEnd(trailers: HTTPFields) {
        guard !failed else { return }
        let expected = trailers["X-Model-SHA256"] ?? headerSHA256
        let writer = self.writer
        let finish = self.finish
        BlockingWork.run {
            do throws(CatalogError) {
                finish(.success(try writer.finish(expectedSHA256: expected)))
            } catch {
                finish(.failure(error))
            }
        }
    }

    func bodyAborted() {
        failed = true
        writer.abort()
    }

    private func fail(_ response: Response) {
        failed = true
        writer.abort()
        exchange.complete(response)
    }
}

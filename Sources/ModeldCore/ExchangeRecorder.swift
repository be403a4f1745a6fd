import HTTPServer

/// Turns every finished exchange into one access-log record and the request metrics (SPEC §4.4, §6).
struct ExchangeRecorder: ExchangeObserver {
    let metrics: Metrics
    let accessLog: AccessLogWriter?
    let instance: String

    func exchangeFinished(_ s: ExchangeSummary) {
        let label = s.label as? RequestLabel ?? RequestLabel(route: .other)
        metrics.recordRequest(route: label.route, status: s.status, bodyBytes: s.bytesSent)
        guard let accessLog else { return }
        accessLog.append(AccessLogRecord(
            timestampMilliseconds: AccessLogRecord.currentTimeMilliseconds(),
            method: s.method, path: s.path, route: label.route, status: s.status, bytes: s.bytesSent,
            range: s.rangeRequested, durationMilliseconds: Double(s.endNanos - s.startNanos) / 1_000_000,
            modelID: label.modelID, sdk: label.sdk, instance: instance))
    }
}

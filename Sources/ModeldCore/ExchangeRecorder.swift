import HTTPServer

/// Turns every finished exchange into one access-log record and the request metrics (SPEC §4.4, §6).
struct ExchangeRecorder: ExchangeObserver {
    let metrics: Metrics
    let accessLog: AccessLogWriter?
    let instance: String
    let servedToday: ServedToday

    func exchangeFinished(_ s: ExchangeSummary) {
        let label = s.label as? RequestLabel ?? RequestLabel(route: .other)
        metrics.recordRequest(route: label.route, status: s.status, bodyBytes: s.bytesSent)
        if label.checks > 0 { metrics.recordChannelChecks(label.checks) }
        guard label.modelID != nil || accessLog != nil else { return }
        let now = AccessLogRecord.currentTimeMilliseconds()
        if let release = label.modelID { servedToday.record(release: release, bytes: s.bytesSent, nowMillis: now) }
        guard let accessLog else { return }
        accessLog.append(AccessLogRecord(
            timestampMilliseconds: now,
            method: s.method, path: s.path, route: label.route, status: s.status, bytes: s.bytesSent,
            range: s.rangeRequested, durationMilliseconds: Double(s.endNanos - s.startNanos) / 1_000_000,
            modelID: label.modelID, sdk: label.sdk, instance: instance))
    }
}

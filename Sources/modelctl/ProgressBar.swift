import CurlTransport
import Foundation

/// An upload progress line on stderr, redrawn in place at most ten times a second. Only made
/// when stderr is a terminal, so logs and pipes never see carriage returns.
final class ProgressBar: CurlProgressObserver {
    private let total: Int64
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var sent: Int64 = 0

    private init(total: Int64) { self.total = total }

    static func forTerminal(total: Int64) -> ProgressBar? {
        isatty(2) == 1 ? ProgressBar(total: total) : nil
    }

    func update(sent: Int64) {
        self.sent = sent
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        draw(now: now, end: "")
    }

    func finish() { draw(now: .now, end: "\n") }

    private func draw(now: ContinuousClock.Instant, end: String) {
        let fraction = total > 0 ? min(1, Double(sent) / Double(total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let seconds = max(0.001, (now - started) / .seconds(1))
        let rate = Int64(Double(sent) / seconds)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "\r[\(bar)] \(Int(fraction * 100))%  \(sent.byteCountText) / \(total.byteCountText)  \(rate.byteCountText)/s\u{1B}[K" + end
        FileHandle.standardError.write(Data(line.utf8))
    }
}

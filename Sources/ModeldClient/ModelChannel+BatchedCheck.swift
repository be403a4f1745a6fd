import Foundation
import ModeldSigning

// A channel's side of a batched check (SPEC §17.2): ``ModelCache`` asks every channel in one
// `POST /check` and hands each its answer; verification, the catalog ratchet and the back-off
// are the channel's own, as in a check of its own.

extension ModelChannel {
    /// What this channel adds to a batched check; throws ``ModeldClientError/deferred(until:)``
    /// while it backs off.
    func batchedCheckPart(_ trigger: UpdateTrigger, now: Date) throws -> BatchedCheck.Part {
        try ensureOpen()
        try checkDeferral(trigger, now: now)
        return BatchedCheck.Part(channel: configuration.channel, clientID: state.clientID, installed: activeModel()?.sha256,
                                 events: try events.pending().first)
    }

    /// How the batched request ended for this channel.
    enum BatchedOutcome: Sendable {
        /// A verified answer: the channel's document (nil: no model) and the signed catalog version.
        case answered(Data?, catalog: Int64?)
        case failed(ModeldClientError, retryAfter: String?)
    }

    /// This channel's result from the batched request, with the back-off kept as for its own check.
    func finishBatchedCheck(_ outcome: BatchedOutcome) async throws -> CheckResult {
        try ensureOpen()
        return try await recordingBackoff {
            switch outcome {
            case .failed(let error, let hint):
                retryAfter = hint
                throw error
            case .answered(nil, let catalog):
                try ratchet(catalog)
                try commit(catalog)
                return CheckResult(status: .noModel, release: nil, catalog: catalog)
            case .answered(let document?, let catalog):
                return try accept(document, catalog: catalog)
            }
        }
    }

    /// Rules mode with a rules index (SPEC §17.2): the snapshot `entry` names (nil: the index
    /// lists no rules for this channel, so no model), or the index's failure.
    func checkRules(entry: Result<(RulesIndex.Entry?, signed: Bool), RulesSource.Failure>, _ trigger: UpdateTrigger) async throws -> CheckResult {
        try ensureOpen()
        try checkDeferral(trigger, now: Date())
        return try await recordingBackoff {
            let (named, signed): (RulesIndex.Entry?, Bool)
            switch entry {
            case .failure(let failure):
                retryAfter = failure.retryAfter
                throw failure.error
            case .success(let value): (named, signed) = value
            }
            guard let named else { return CheckResult(status: .noModel, release: nil, catalog: nil) }
            let outcome: RulesVerifier.Outcome
            do { outcome = try await rules!.fetch(entry: named, signed: signed) } catch let failure as RulesSource.Failure {
                retryAfter = failure.retryAfter
                throw failure.error
            }
            if configuration.events != nil { _ = try? await flushEvents() }   // best effort: they stay queued
            return try evaluate(outcome)
        }
    }

    /// The server stored the batch file `name` this channel contributed (or had it already):
    /// forget it; a file already gone is fine (acknowledged before a crash).
    func acknowledgeBatch(named name: String) throws {
        let file = events.directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try events.acknowledge(EventQueue.Batch(file: file, batchID: "", lines: []))
    }
}

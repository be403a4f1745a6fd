import Foundation

extension ModelChannel {
    /// The model to use under `policy` (Firebase's `getModel(name:downloadType:conditions:)`):
    /// nil means the app's bundled base model. `progress` sees the update's phases, if one runs
    /// while this call waits.
    public func model(policy: ModelPolicy, progress: (@Sendable (UpdatePhase) -> Void)? = nil) async throws -> InstalledModel? {
        switch policy {
        case .local:
            return activeModel()
        case .localThenUpdateInBackground:
            guard let local = activeModel() else { return try await update(progress: progress).active }
            // The caller runs `local` now; a failure here is retried at the next check date.
            Task { _ = try? await self.update(progress: progress) }
            return local
        case .latest:
            return try await update(progress: progress).active
        }
    }

    /// ``update(progress:)`` as a stream of its phases, ending after `installed` (or throwing the
    /// failure). Ending the iteration early (e.g. a SwiftUI `.task` that goes away) cancels the
    /// update; the partial download is kept.
    public nonisolated func updatePhases() -> AsyncThrowingStream<UpdatePhase, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await self.update { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

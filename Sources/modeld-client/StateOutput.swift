import ArgumentParser
import Foundation
import ModeldClient

/// The `--json` shape of `check`, `update` and `status` (SPEC §13), and its text form.
struct StateOutput {
    enum State: String {
        case upToDate = "up_to_date", available, updated, noModel = "no_model", rejected, installed, none

        init(_ status: CheckResult.Status) {
            switch status {
            case .upToDate: self = .upToDate
            case .available: self = .available
            case .noModel: self = .noModel
            }
        }

        init(_ status: UpdateResult.Status) {
            switch status {
            case .upToDate: self = .upToDate
            case .updated: self = .updated
            case .noModel: self = .noModel
            case .available: self = .available
            }
        }
    }

    var state: State
    var active: InstalledModel?
    var catalog: Int64?
    var reason: String?
    /// `check`'s newer release, named in the text form.
    var release: Release?

    func print(json: Bool) {
        if json {
            let object: [String: Any] = [
                "state": state.rawValue,
                "active": active.map { ["id": $0.id, "sha256": $0.sha256, "size": $0.size, "path": $0.path.path] as [String: Any] } ?? NSNull(),
                "catalog": catalog.map { $0 as Any } ?? NSNull(),
                "reason": reason.map { $0 as Any } ?? NSNull(),
            ]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        switch state {
        case .upToDate: Swift.print("up to date\(active.map { ": \($0.id)" } ?? "")")
        case .available:
            if let release { Swift.print("available: \(release.id) (\(release.size) bytes, sha256 \(release.sha256), label \(release.label ?? "-"))") }
        case .updated, .installed: if let active { Swift.print("active: \(active.id) \(active.path.path) sha256 \(active.sha256)") }
        case .noModel: Swift.print("no model for this SDK and channel")
        case .rejected: Swift.print("rejected: \(reason ?? "")")
        case .none: Swift.print("no model installed")
        }
    }
}

extension ModeldClientCommand {
    /// Runs a check or update: verification failures are reported as `rejected` (exit 1).
    func report(_ body: (ModeldClient) async throws -> StateOutput) async throws {
        try await withClient { client in
            warnIfUnsigned()
            do {
                try await body(client).print(json: json)
            } catch ModeldClientError.verification(let reason) {
                StateOutput(state: .rejected, active: await client.activeModel(), reason: reason).print(json: json)
                printError("modeld-client: verification failed: \(reason)")
                throw ExitCode(1)
            }
        }
    }
}

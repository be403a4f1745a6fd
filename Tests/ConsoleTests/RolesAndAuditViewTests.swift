import AccessTokens
@testable import Console
import Guardrails
import ModelCatalog
import Testing

/// What a role sees (SPEC §15.1: no control it lacks) and the audit view's lines, without a server.
@Suite struct RolesAndAuditViewTests {
    static let id = "00000000-0000-4000-8000-000000000001"

    static func session(_ role: Role) -> ConsoleSession {
        ConsoleSession(principal: Principal(name: "n", role: role, tokenSHA256: nil), csrfToken: "c", expiresAtMillis: 0, handle: "h")
    }

    static func release(rollout: Int = 100, guardStatus: GuardStatus? = nil) throws -> Release {
        let plan = try guardStatus.map { status throws(GuardPlanError) in
            try GuardPlan(metric: try .init(name: "upsell", outcome: "purchased"), stages: [5, 10], runtime: .init(status: status, stageStartedAt: 0))
        }
        return try Release(id: id, seq: 1, ext: "bin", sha256: String(repeating: "ab", count: 32), size: 10, sdkMin: "1.0",
                           rolloutPercent: rollout, state: guardStatus == .pausedRegression ? .paused : .active,
                           publishedAt: Timestamp(millisecondsSinceEpoch: 0), guardPlan: plan)
    }

    @Test(arguments: [Role.viewer, .publisher, .admin])
    func controlsAreRenderedOnlyForARoleThatMayUseThem_SPEC15_1(role: Role) throws {
        let r = try Self.release()
        let list = ReleasesView.page(.success(ReleaseListing([r], query: ReleaseQuery())), typed: .init([]), served: [:], signature: "unsigned",
                                     session: Self.session(role))
        let page = ReleaseView.page(r, chunkList: nil, served: .init(), guardReport: nil, signature: "unsigned", session: Self.session(role), nowMillis: 0)
        let steers = role >= .publisher
        #expect(list.contains(#"id="publish""#) == steers)
        for control in [#"id="rollout""#, "data-state=", "data-retire=", #"id="add-variant""#] {
            #expect(page.contains(control) == steers, "\(role): \(control)")
        }
        // The guard panel: the plan for everyone, "Stop guard" and the confirmations that say the
        // guard will stop only for a role that may steer; the controls carry the release's revision.
        let running = try Self.release(rollout: 5, guardStatus: .healthy)
        let guarded = ReleaseView.page(running, chunkList: nil, served: .init(), guardReport: nil, signature: "unsigned",
                                       session: Self.session(role), nowMillis: 60_000)
        #expect(guarded.contains(#"id="guard-plan""#) && guarded.contains("upsell = purchased") && guarded.contains("5 → 10 %"))
        #expect(guarded.contains("Stage 5 % (1 of 2) for 1 min. Next: 10 %"))
        #expect(guarded.contains("data-stop-guard=") == steers && guarded.contains("The guard will stop") == steers, "\(role)")
        #expect(guarded.contains(#"data-revision="\#(running.revision.opaque)""#))
        let paused = ReleaseView.page(try Self.release(rollout: 5, guardStatus: .pausedRegression), chunkList: nil, served: .init(),
                                      guardReport: nil, signature: "unsigned", session: Self.session(role), nowMillis: 0)
        #expect(paused.contains(">Resume anyway</button>") == steers && !paused.contains("data-stop-guard="), "\(role)")
        #expect(list.contains("Signed in as <strong>n</strong> (\(role.rawValue))"))
    }

    @Test func auditLines_sayWhatChanged_andFilterByActorOrRelease_SPEC15_1() throws {
        let before = try Self.release()
        let after = try Self.release(rollout: 10)
        let line = AuditEntry.json(time: Timestamp(millisecondsSinceEpoch: 0), action: "rollout", actor: "alice", peer: "10.0.0.1",
                                   session: nil, subject: .release(Self.id, before: before, after: after))
        let parsed = try #require(AuditLine(json: line[...]))
        #expect(parsed.actor == "alice" && parsed.peer == "10.0.0.1" && parsed.release == Self.id)
        #expect(parsed.change == "rollout_percent 100 → 10")
        #expect(parsed.matches(actor: "alice", release: nil) && parsed.matches(actor: nil, release: Self.id))
        #expect(!parsed.matches(actor: "bob", release: nil) && !parsed.matches(actor: "alice", release: "x"))

        let failed = AuditEntry.json(time: Timestamp(millisecondsSinceEpoch: 0), action: "sign_in_failed", actor: nil, peer: "10.0.0.2",
                                     session: nil, subject: nil)
        #expect(String(decoding: failed, as: UTF8.self) == #"{"ts":"1970-01-01T00:00:00.000Z","action":"sign_in_failed","actor":null,"peer":"10.0.0.2"}"#)
        let token = AuditEntry.json(time: Timestamp(millisecondsSinceEpoch: 0), action: "token_create", actor: "admin", peer: "p",
                                    session: "abc", subject: .token(name: "ci", role: .publisher))
        #expect(try #require(AuditLine(json: token[...])).change == "role publisher")
        #expect(AuditLine(json: Array(#"{"ts":"x","action":"y""#.utf8)[...]) == nil)   // a torn line is skipped

        let view = AuditView.page([parsed], actor: "alice", release: nil, session: Self.session(.viewer))
        #expect(view.contains(#"href="/console/audit?actor=alice""#) && view.contains(#"href="/console/audit?release=\#(Self.id)""#))
        #expect(ConsolePage.queryValue("a b&c@d") == "a%20b%26c%40d")
    }
}

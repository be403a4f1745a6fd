import Foundation

/// When a newly installed model counts as crash-looping (SPEC §13.2, docs/client.md "Rollback
/// rule"): `launches` launches of the same model in a row that ended unhealthy.
public struct CrashLoopRule: Sendable, Equatable {
    /// Consecutive unhealthy launches that roll the model back and block it; nil = never.
    public let launches: Int?

    /// - Parameter launches: at least 1 (the default, 2, is SPEC §13.2's).
    public init(launches: Int = 2) { self.launches = launches }

    private init(never: Void) { launches = nil }

    /// No crash-loop rollback at all (``ModelChannel/reportBad(_:reason:)`` still works).
    public static let off = CrashLoopRule(never: ())
}

/// The crash-loop rule as pure state transitions over the two fields `state.json` keeps for the
/// active model. A launch is counted when it starts (a crash leaves no chance to count it
/// later) and un-counted once it is healthy: the app marked the model good, reached the
/// background, or the process ended cleanly. What remains at the next start are launches that
/// ended in none of these. A model installed but never launched, or launched and then
/// backgrounded or closed, is never blocked.
struct LaunchHealth: Equatable {
    var unconfirmedLaunches = 0
    var isGood = false

    enum Event: Equatable {
        /// A new model became active (installed or rolled back to).
        case installed
        /// The app asked for the model to load it (once per launch).
        case launched
        /// This launch reached the background (Apple's lifecycle notifications): a suspended
        /// app the system kills later is no crash.
        case backgrounded
        /// This launch ended cleanly (`close()`, the client released, the app terminating).
        case endedCleanly
        /// The app reported the model good: trusted from now on.
        case markedGood
    }

    mutating func apply(_ event: Event) {
        switch event {
        case .installed: self = LaunchHealth()
        case .launched: if !isGood { unconfirmedLaunches += 1 }
        // In a row: a healthy launch clears earlier unhealthy ones.
        case .backgrounded, .endedCleanly: unconfirmedLaunches = 0
        case .markedGood: self = LaunchHealth(unconfirmedLaunches: 0, isGood: true)
        }
    }

    /// Whether the client opening the cache rolls the active model back and blocks it.
    func shouldRollBack(_ rule: CrashLoopRule) -> Bool {
        guard let launches = rule.launches else { return false }
        return !isGood && unconfirmedLaunches >= max(1, launches)
    }
}

/// One process's part in the rule: it un-counts only the launch it counted itself, once, so a
/// process that never loaded the model says nothing about it, and a second background or close
/// writes nothing.
struct LaunchLifecycle {
    enum Signal: Equatable {
        /// `launchModel()`: the app loads the model.
        case modelLoaded
        /// The app reached the background.
        case backgrounded
        /// `close()`, the client released, or the app terminating.
        case endedCleanly
    }

    private(set) var counted = false
    private var settled = false

    /// The stored health after `signal` in this process, or nil when nothing changes.
    mutating func handle(_ signal: Signal, health: LaunchHealth) -> LaunchHealth? {
        var next = health
        switch signal {
        case .modelLoaded:
            guard !counted, !settled, !health.isGood else { return nil }
            counted = true
            next.apply(.launched)
        case .backgrounded, .endedCleanly:
            guard counted, !settled else { return nil }
            settled = true
            next.apply(signal == .backgrounded ? .backgrounded : .endedCleanly)
        }
        return next == health ? nil : next
    }
}

extension CacheState {
    var launchHealth: LaunchHealth {
        get { LaunchHealth(unconfirmedLaunches: unconfirmedLaunches, isGood: activeIsGood) }
        set {
            unconfirmedLaunches = newValue.unconfirmedLaunches
            activeIsGood = newValue.isGood
        }
    }
}

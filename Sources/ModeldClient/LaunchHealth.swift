import Foundation

/// When a newly installed model counts as crash-looping (docs/client.md, "Rollback rule").
public struct CrashLoopRule: Sendable, Equatable {
    /// Consecutive failed launches that roll the model back and block it.
    public var launches: Int
    /// A launch fails when its process ends within this time of ``ModeldClient/launchModel()``
    /// without ``ModeldClient/markGood(_:)``; a launch that lives longer counts as healthy even
    /// if the app never used the model.
    public var window: TimeInterval

    public init(launches: Int = 2, window: TimeInterval = 60) {
        self.launches = launches
        self.window = window
    }
}

/// The crash-loop rule as pure state transitions over the two fields `state.json` keeps for the
/// active model. A launch is counted when it starts (a crash leaves no chance to count it
/// later) and un-counted when it lives through the window or the app marks the model good, so
/// what remains at the next start are launches that ended early without `markGood`.
/// A model that is installed but never launched, or launched and not used, is never blocked.
struct LaunchHealth: Equatable {
    var unconfirmedLaunches = 0
    var isGood = false

    enum Event: Equatable {
        /// A new model became active (installed or rolled back to).
        case installed
        /// The app asked for the model to load it (once per client instance).
        case launched
        /// That launch's process was still running `window` after it.
        case survived
        /// The app reported the model good.
        case markedGood
    }

    mutating func apply(_ event: Event) {
        switch event {
        case .installed: self = LaunchHealth()
        case .launched: if !isGood { unconfirmedLaunches += 1 }
        case .survived: unconfirmedLaunches = 0  // in a row: a healthy launch clears earlier early ends
        case .markedGood: self = LaunchHealth(unconfirmedLaunches: 0, isGood: true)
        }
    }

    /// Whether the client opening the cache rolls the active model back and blocks it.
    func shouldRollBack(_ rule: CrashLoopRule) -> Bool { !isGood && unconfirmedLaunches >= max(1, rule.launches) }
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

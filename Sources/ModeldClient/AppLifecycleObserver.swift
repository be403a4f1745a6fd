#if canImport(Darwin)
import Foundation
#if os(watchOS)
// WatchKit's notification names are main-actor properties; the observer uses the constant's string.
#elseif canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The app's lifecycle notifications, delivered to a client (SPEC §13.2): reaching the
/// background or terminating makes the launch healthy, so the system killing a suspended app
/// is never taken for a crash. Started by the first `launchModel()`; a thin shim over
/// NotificationCenter, the rule itself is ``LaunchLifecycle`` (Linux-tested). Apple only: on
/// Linux the clean end is `close()` or releasing the client.
final class AppLifecycleObserver: @unchecked Sendable {  // tokens: set once in init, read in deinit
    private var tokens: [any NSObjectProtocol] = []

    init(client: ModelChannel) {
        tokens = Self.notifications.map { name, signal in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak client] _ in
                Task { await client?.lifecycleSignal(signal) }
            }
        }
    }

    deinit { tokens.forEach { NotificationCenter.default.removeObserver($0) } }

    /// Each platform's background and termination notifications (all within the declared minimums).
    private static var notifications: [(Notification.Name, LaunchLifecycle.Signal)] {
        #if os(watchOS)
        [(Notification.Name("WKApplicationDidEnterBackgroundNotification"), .backgrounded)]
        #elseif canImport(UIKit)
        [(UIApplication.didEnterBackgroundNotification, .backgrounded), (UIApplication.willTerminateNotification, .endedCleanly)]
        #elseif canImport(AppKit)
        [(NSApplication.didHideNotification, .backgrounded), (NSApplication.willTerminateNotification, .endedCleanly)]
        #else
        []
        #endif
    }
}

extension ModelChannel {
    /// A lifecycle notification: background makes the launch healthy, termination closes the client.
    func lifecycleSignal(_ signal: LaunchLifecycle.Signal) {
        switch signal {
        case .backgrounded: enteredBackground()
        case .endedCleanly: close()
        case .modelLoaded: break
        }
    }
}
#endif

// Yardstick, not part of the package: Foundation's JSONSerialization parse-only rate on the
// benchmark's bodies (built with swiftc -O by run.sh into a temp dir).
import Foundation

let template = try! String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8)
let count = Int(CommandLine.arguments[2]) ?? 20_000
let eventsPerBody = Int(CommandLine.arguments[3]) ?? 50
let bodies = (0..<count).map { Data(template.replacingOccurrences(of: "@ID@", with: "y-\($0)").utf8) }
var events = 0
let start = Date()
for body in bodies {
    let object = try! JSONSerialization.jsonObject(with: body) as! [String: Any]
    events += (object["events"] as! [Any]).count
}
let seconds = Date().timeIntervalSince(start)
precondition(events == count * eventsPerBody)
print(String(format: "YARDSTICK bodies=%d events=%d seconds=%.3f events_per_s=%.0f MB_per_s=%.1f", count, events, seconds,
             Double(events) / seconds, Double(bodies.reduce(0) { $0 + $1.count }) / seconds / 1e6))

// Compiled into every fuzz target. `precondition` drops its message under -O; a failed invariant
// should say what broke, so targets check with this instead.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("invariant failed: \(message())", file: file, line: line) }
}

import CommandLineArguments
import Testing

/// SPEC §7 (v6): `--effect -0.1` reaches the parser as `--effect=-0.1`; nothing else changes.
struct NegativeNumbersTests {
    static let rows: [([String], [String])] = [
        (["experiment", "simulate", "--effect", "-0.1"], ["experiment", "simulate", "--effect=-0.1"]),
        (["--value", "-3", "--x", "-.5", "--y", "-1e-3"], ["--value=-3", "--x=-.5", "--y=-1e-3"]),
        (["--effect=-0.1"], ["--effect=-0.1"]),                  // already attached
        (["--effect"], ["--effect"]),                            // missing value: the parser says so
        (["--effect", "--runs", "5"], ["--effect", "--runs", "5"]),
        (["--size", "-5MB", "--a", "-inf", "--b", "-nan", "--c", "-", "--d", "-x"],
         ["--size", "-5MB", "--a", "-inf", "--b", "-nan", "--c", "-", "--d", "-x"]),  // not numbers
        (["-e", "-1"], ["-e", "-1"]),                            // short options are left alone
        (["--a", "1", "-2"], ["--a", "1", "-2"]),                // not right after an option
        (["--", "--effect", "-0.1"], ["--", "--effect", "-0.1"]),  // after `--` everything is as given
        (["--a", "-1", "--", "--b", "-2"], ["--a=-1", "--", "--b", "-2"]),
        ([], []),
    ]

    @Test(arguments: rows)
    func attached(arguments: [String], expected: [String]) {
        #expect(NegativeNumbers.attached(arguments) == expected)
    }
}

#!/usr/bin/env python3
"""Checks the client's Apple APIs against docs/apple-apis.json and Package.swift (SPEC §13.2).

Nothing here compiles for Apple platforms, so the table is the contract: each Apple API the
client uses, with the oldest OS that has it on each platform (null: not there at all; Linux-only
symbols are rows that no Apple platform has). The check walks the `#if` structure of every Swift
file of the targets ModeldClient and modeld-client link on Apple (from `swift package
dump-package`), evaluating each condition per platform (iOS, macOS, tvOS, watchOS, visionOS,
Linux), and fails when
  1. a line compiled for a platform names a table symbol that the platform lacks, or has only
     above the minimum Package.swift declares (Synchronization's Mutex on iOS 16; Core ML's
     compiler on watchOS; fdatasync on any Apple platform), or
  2. Apple-only code (compiled for an Apple platform, never for Linux) names an API the table
     does not list: a type or constant (a capitalised name) or a member after a dot that is
     neither declared in these targets nor used by their Linux code. So a new Apple API cannot
     slip in without its row.

    apple_api_table.py --package dump.json TARGET...   check the targets and what they link on Apple
    apple_api_table.py --self-test                      prove the checker on bad and good samples
"""
import json
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPLE = ["iOS", "macOS", "tvOS", "watchOS", "visionOS"]
PLATFORMS = APPLE + ["Linux"]
# What `canImport` sees per platform; any other module may be either (None).
EVERY_APPLE = {"Darwin", "Foundation", "Dispatch", "CoreML", "CryptoKit", "Network", "ObjectiveC"}
LINUX_MODULES = {"Glibc", "Musl", "FoundationNetworking", "CLinuxShims", "CCurl", "CLibcrypto", "CurlTransport"}
IMPORTS = {
    "Linux": (LINUX_MODULES | {"Foundation", "Dispatch"}, EVERY_APPLE - {"Foundation", "Dispatch"} | {"UIKit", "AppKit", "WatchKit"}),
    "iOS": (EVERY_APPLE | {"UIKit"}, LINUX_MODULES | {"AppKit", "WatchKit"}),
    "tvOS": (EVERY_APPLE | {"UIKit"}, LINUX_MODULES | {"AppKit", "WatchKit"}),
    "visionOS": (EVERY_APPLE | {"UIKit"}, LINUX_MODULES | {"AppKit", "WatchKit"}),
    "watchOS": (EVERY_APPLE | {"UIKit", "WatchKit"}, LINUX_MODULES | {"AppKit"}),
    "macOS": (EVERY_APPLE | {"AppKit"}, LINUX_MODULES | {"UIKit", "WatchKit"}),
}
KEYWORDS = {"Self", "Any", "Type", "Protocol", "None", "Some"}


def tokenize(condition):
    return re.findall(r"&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\)|[A-Za-z_][A-Za-z0-9_.]*", condition)


def evaluate(condition, platform):
    """True, False or None (may be either) on `platform`."""
    tokens = tokenize(condition)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def atom(token):
        match = re.fullmatch(r"(\w+)\s*\(\s*([^()]*?)\s*\)", token)
        if not match:
            return None  # a custom flag (DEBUG, …)
        kind, argument = match.group(1), match.group(2).split(",")[0].strip()
        if kind == "os":
            return argument == platform
        if kind == "canImport":
            present, absent = IMPORTS[platform]
            return True if argument in present else (False if argument in absent else None)
        return None

    def primary():
        token = take()
        if token == "!":
            value = primary()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            if take() != ")":
                raise ValueError("unbalanced parentheses in #if " + condition)
            return value
        if token in ("true", "false"):
            return token == "true"
        return atom(token)

    def conjunction():
        value = primary()
        while peek() == "&&":
            take()
            other = primary()
            value = False if (value is False or other is False) else (True if (value and other) else None)
        return value

    def disjunction():
        value = conjunction()
        while peek() == "||":
            take()
            other = conjunction()
            value = True if (value is True or other is True) else (False if (value is False and other is False) else None)
        return value

    value = disjunction()
    if position != len(tokens):
        raise ValueError("cannot read #if " + condition)
    return value


def strip_code(line, in_block):
    """The line without comments and string literals; whether a block comment is still open."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            end = i + 1
            while end < len(line) and line[end] != '"':
                end += 2 if line[end] == "\\" else 1
            out.append('""')
            i = end + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def compiled_lines(path):
    """[(number, code, {platform: may this line be compiled there})] and findings of unreadable #ifs."""
    lines, findings, stack, in_block = [], [], [], False
    # Each frame, per platform: [this branch may be compiled, an earlier branch surely was].
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            code, in_block = strip_code(raw, in_block)
            directive = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", code)
            if directive:
                kind, rest = directive.group(1), directive.group(2).strip()
                try:
                    if kind == "if":
                        stack.append({p: [v is not False, v is True] for p, v in ((p, evaluate(rest, p)) for p in PLATFORMS)})
                    elif kind in ("elseif", "else"):
                        for p, frame in stack[-1].items():
                            v = evaluate(rest, p) if kind == "elseif" else True
                            frame[0], frame[1] = not frame[1] and v is not False, frame[1] or v is True
                    else:
                        stack.pop()
                except (ValueError, IndexError) as error:
                    findings.append((number, "unreadable conditional compilation: %s" % (error or kind)))
                continue
            lines.append((number, code, {p: all(frame[p][0] for frame in stack) for p in PLATFORMS}))
    if stack:
        findings.append((number, "#if without #endif"))
    return lines, findings


def version(text):
    return tuple(int(part) for part in text.split("."))


def check(files, table, declared):
    """Findings (path, line, message) of the files against the table and declared minimums."""
    findings, parsed = [], {}
    for path in files:
        lines, problems = compiled_lines(path)
        parsed[path] = lines
        findings += [(path, n, m) for n, m in problems]
    by_symbol = {}
    for row in table:
        for symbol in row["symbols"]:
            by_symbol[symbol] = row
    declarations, linux_names = set(), set()
    for lines in parsed.values():
        for _, code, where in lines:
            for match in re.finditer(r"\b(?:func|var|let|class|struct|enum|case|protocol|typealias|actor|associatedtype)\s+([A-Za-z_]\w*)", code):
                declarations.add(match.group(1))
            if re.match(r"\s*(?:\w+\s+)*case\b", code):
                declarations.update(re.findall(r"(?:case|,)\s*\.?([A-Za-z_]\w*)", code))
            if where["Linux"]:
                linux_names.update(re.findall(r"[A-Za-z_]\w*", code))
    for path, lines in parsed.items():
        for number, code, where in lines:
            names = set(re.findall(r"[A-Za-z_]\w*", code))
            for symbol in names & set(by_symbol):
                row = by_symbol[symbol]
                for platform in APPLE:
                    if not where[platform]:
                        continue
                    needed = row["min"].get(platform)
                    if needed is None:
                        findings.append((path, number, "'%s' (%s) does not exist on %s, and this line is compiled there"
                                         % (symbol, row["api"], platform)))
                    elif version(needed) > version(declared[platform]):
                        findings.append((path, number, "'%s' (%s) needs %s %s; Package.swift declares %s"
                                         % (symbol, row["api"], platform, needed, declared[platform])))
            if where["Linux"] or not any(where[p] for p in APPLE):
                continue
            candidates = set(re.findall(r"\b[A-Z]\w*", code)) | set(re.findall(r"\.([A-Za-z_]\w*)", code))
            for name in sorted(candidates - declarations - linux_names - KEYWORDS - set(by_symbol)):
                findings.append((path, number, "Apple-only code names '%s', which docs/apple-apis.json does not list" % name))
    return findings


def apple_closure(package, roots):
    """The package's own targets that `roots` link on Apple platforms (dependencies not limited to Linux)."""
    targets = {target["name"]: target for target in package["targets"]}
    seen, todo = [], list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in targets:
            continue
        seen.append(name)
        for dependency in targets[name].get("dependencies", []):
            kind, value = next(iter(dependency.items()))
            if kind == "product":
                continue  # another package (swift-crypto, ArgumentParser): builds for Apple itself
            condition = value[-1] if len(value) > 1 else None
            platforms = {p["name"] if isinstance(p, dict) else p for p in (condition or {}).get("platformNames", [])}
            if condition and platforms and platforms <= {"linux", "android", "windows", "wasi", "openbsd"}:
                continue
            todo.append(value[0])
    return [(name, targets[name].get("path") or os.path.join("Sources", name)) for name in seen]


def declared_platforms(package):
    names = {"ios": "iOS", "macos": "macOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS"}
    declared = {names[p["platformName"]]: p["version"] for p in package.get("platforms", []) if p["platformName"] in names}
    missing = [p for p in APPLE if p not in declared]
    if missing:
        raise SystemExit("apple-api-table: Package.swift declares no minimum for %s" % missing)
    return declared


def load_table():
    with open(os.path.join(ROOT, "docs", "apple-apis.json"), encoding="utf-8") as handle:
        table = json.load(handle)["apis"]
    for row in table:
        if set(row["min"]) != set(APPLE) or not row["symbols"]:
            raise SystemExit("apple-api-table: row %r needs symbols and a minimum (or null) for each of %s" % (row.get("api"), APPLE))
    return table


def check_targets(package_json, roots):
    with open(package_json, encoding="utf-8") as handle:
        package = json.load(handle)
    modules = apple_closure(package, roots)
    if not all(root in dict(modules) for root in roots):
        print("apple-api-table: targets %s not all in Package.swift" % roots)
        return 1
    files = [os.path.join(folder, name) for _, directory in modules for folder, _, names in os.walk(directory)
             for name in sorted(names) if name.endswith(".swift")]
    findings = check(files, load_table(), declared_platforms(package))
    for path, number, message in findings:
        print("%s:%d: %s" % (path, number, message))
    print("apple-api-table: %d Swift files in %s; %d problems" % (len(files), ", ".join(n for n, _ in modules), len(findings)))
    return 1 if findings or not files else 0


SAMPLE_TABLE = [
    {"api": "Synchronization.Mutex", "symbols": ["Mutex"], "min": {"iOS": "18", "macOS": "15", "tvOS": "18", "watchOS": "11", "visionOS": "2"}},
    {"api": "MLModel.compileModel(at:)", "symbols": ["MLModel", "compileModel"], "min": {"iOS": "16", "macOS": "13", "tvOS": "16", "watchOS": None, "visionOS": "1"}},
    {"api": "glibc", "symbols": ["fdatasync", "Glibc"], "min": {p: None for p in APPLE}},
    {"api": "URLSessionConfiguration.background", "symbols": ["URLSessionConfiguration", "background"],
     "min": {"iOS": "8", "macOS": "10.10", "tvOS": "9", "watchOS": "2", "visionOS": "1"}},
]
DECLARED = {"iOS": "16", "macOS": "13", "tvOS": "16", "watchOS": "9", "visionOS": "1"}
BAD = {
    "mutex.swift": "import Synchronization\nlet m = Mutex(0)\n",
    "watch.swift": "#if canImport(CoreML)\nlet c = try await MLModel.compileModel(at: u)\n#endif\n",
    "glibc.swift": "#if canImport(Darwin)\nimport Darwin\n#else\nimport Foundation\n#endif\nimport Glibc\n",
    "elif.swift": "#if os(macOS)\nimport Darwin\n#elseif DEBUG\n_ = fdatasync(0)\n#endif\n",
    "unlisted.swift": "#if canImport(Darwin)\nlet monitor = NWPathMonitor()\n#endif\n",
    "member.swift": "#if os(iOS)\nlet s = configuration.sharedContainerIdentifier\n#endif\n",
    "unclosed.swift": "#if os(Linux)\nimport Glibc\n",
}
GOOD = {
    "guarded.swift": "#if os(Linux)\nimport Glibc\n_ = fdatasync(0)\n#elseif canImport(Darwin)\nlet c = URLSessionConfiguration.background(withIdentifier: \"\")\n#endif\n",
    "watchos.swift": "#if canImport(CoreML) && !os(watchOS)\nlet c = try await MLModel.compileModel(at: u)\n#endif\n",
    "declared.swift": "#if canImport(Darwin)\nfinal class Shim { func go() { helper.run() } }\n#endif\nlet helper = Helper()\nstruct Helper { func run() {} }\n",
    "comment.swift": "let s = \"Mutex( in a string\" // NWPathMonitor\n/* import Synchronization\n still comment */\n",
}


def self_test():
    problems = []
    with tempfile.TemporaryDirectory() as directory:
        for samples, expect_findings in ((BAD, True), (GOOD, False)):
            for name, text in samples.items():
                path = os.path.join(directory, name)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
                found = check([path], SAMPLE_TABLE, DECLARED)
                if bool(found) != expect_findings:
                    problems.append("%s: expected %s, got %s" % (name, "findings" if expect_findings else "none", found))
    package = {"targets": [
        {"name": "App", "dependencies": [{"byName": ["Shared", None]}, {"target": ["LinuxOnly", {"platformNames": ["linux"]}]},
                                         {"product": ["Crypto", "swift-crypto", None, None]}]},
        {"name": "Shared", "dependencies": []}, {"name": "LinuxOnly", "dependencies": []}]}
    if sorted(n for n, _ in apple_closure(package, ["App"])) != ["App", "Shared"]:
        problems.append("dependency closure: %s" % apple_closure(package, ["App"]))
    for problem in problems:
        print("apple-api-table self-test: " + problem)
    print("apple-api-table self-test: %s (%d bad, %d good samples)" % ("FAILED" if problems else "ok", len(BAD), len(GOOD)))
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--self-test"]:
        sys.exit(self_test())
    if sys.argv[1:2] == ["--package"] and len(sys.argv) > 3:
        sys.exit(check_targets(sys.argv[2], sys.argv[3:]))
    print(__doc__)
    sys.exit(2)

#!/usr/bin/env python3
"""Finds client code that would not build for Apple platforms (SPEC §13.1).

Walks the `#if` structure of each Swift file and evaluates every condition as an Apple build
would see it: os(Linux), canImport(Glibc|Musl|FoundationNetworking) are false there,
canImport(Darwin) is true, anything else may be either. A line is Apple code unless a
condition around it is definitely false on Apple. Apple code must not import Synchronization
(Mutex/Atomic need iOS 18) nor name a Linux-only module or symbol.

    client_portability.py --package dump.json TARGET...   scan the targets and what they link on Apple
    client_portability.py --self-test                      prove the scanner on bad and good samples
"""
import json
import os
import re
import sys
import tempfile

APPLE_OS = {"macOS", "iOS", "tvOS", "watchOS", "visionOS"}
FALSE_ON_APPLE = {"Glibc", "Musl", "FoundationNetworking", "CLinuxShims", "CCurl", "CurlTransport", "WinSDK", "Android"}
TRUE_ON_APPLE = {"Darwin", "Foundation", "Dispatch"}

# Identifiers that exist only on Linux (or in this package's Linux-only modules).
LINUX_ONLY = ["Glibc", "Musl", "CLinuxShims", "CCurl", "CurlTransport", "CurlHTTPTransport", "CurlEasy",
              "CurlTransfer", "CurlCancellation", "sync_file_range", "O_DIRECT", "O_TMPFILE", "fdatasync",
              "posix_fadvise", "fallocate", "epoll_[a-z_]+", "eventfd", "timerfd_[a-z_]+", "signalfd", "accept4",
              "sendfile", "statx", "modeld_[a-z_]+"]
FORBIDDEN = [(re.compile(r"\bimport\s+Synchronization\b"), "imports Synchronization (Mutex/Atomic need iOS 18, macOS 15)"),
             (re.compile(r"\b(Mutex|Atomic)\s*[<(]"), "uses Synchronization's Mutex/Atomic (iOS 18, macOS 15)")]
FORBIDDEN += [(re.compile(r"\b" + name + r"\b"), "names the Linux-only symbol '%s'" % name.replace("[a-z_]+", "*"))
              for name in LINUX_ONLY]


def tokenize(condition):
    return re.findall(r"&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\)|[A-Za-z_][A-Za-z0-9_.]*", condition)


def evaluate(condition):
    """True, False or None (may be either) for an Apple build."""
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
        kind, argument = match.groups()
        argument = argument.split(",")[0].strip()
        if kind == "os":
            return None if argument in APPLE_OS else False
        if kind == "canImport":
            return False if argument in FALSE_ON_APPLE else (True if argument in TRUE_ON_APPLE else None)
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


def scan(path):
    """Findings (line number, message) of one Swift file."""
    findings = []
    # Each frame: (is this branch compiled on Apple, has an earlier branch of the chain been taken for sure).
    stack = []
    in_block = False
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            code, in_block = strip_code(raw, in_block)
            directive = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", code)
            if directive:
                kind, rest = directive.group(1), directive.group(2).strip()
                try:
                    if kind == "if":
                        value = evaluate(rest)
                        stack.append([value is not False, value is True])
                    elif kind == "elseif":
                        value = evaluate(rest)
                        frame = stack[-1]
                        frame[0] = not frame[1] and value is not False
                        frame[1] = frame[1] or value is True
                    elif kind == "else":
                        frame = stack[-1]
                        frame[0], frame[1] = not frame[1], True
                    else:
                        stack.pop()
                except (ValueError, IndexError) as error:
                    findings.append((number, "unreadable conditional compilation: %s" % (error or kind)))
                continue
            if not all(frame[0] for frame in stack):
                continue
            for pattern, message in FORBIDDEN:
                if pattern.search(code):
                    findings.append((number, message + " outside #if os(Linux) / canImport(Glibc)"))
    if stack:
        findings.append((number, "#if without #endif"))
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


def scan_targets(package_json, roots):
    with open(package_json, encoding="utf-8") as handle:
        package = json.load(handle)
    modules = apple_closure(package, roots)
    if not all(root in dict(modules) for root in roots):
        print("client-portability: targets %s not all in Package.swift" % roots)
        return 1
    failures, files = 0, 0
    for name, directory in modules:
        for folder, _, names in os.walk(directory):
            for file in sorted(n for n in names if n.endswith(".swift")):
                files += 1
                path = os.path.join(folder, file)
                for number, message in scan(path):
                    failures += 1
                    print("%s:%d: %s" % (path, number, message))
    print("client-portability: %d Swift files in %s; %d problems" % (files, ", ".join(n for n, _ in modules), failures))
    return 1 if failures or files == 0 else 0


BAD = {
    "mutex.swift": "import Synchronization\nlet m = Mutex(0)\n",
    "glibc.swift": "#if canImport(Darwin)\nimport Darwin\n#else\nimport Foundation\n#endif\nimport Glibc\n",
    "elif.swift": "#if os(macOS)\nimport Darwin\n#elseif DEBUG\nlet x = O_DIRECT\n#endif\n",
    "notlinux.swift": "#if !os(Linux)\n_ = sync_file_range(fd, 0, 0, 0)\n#endif\n",
    "nested.swift": "#if os(Linux)\n#endif\n#if os(macOS) || os(Linux)\nimport CLinuxShims\n#endif\n",
    "curl.swift": "let t = CurlHTTPTransport(idleTimeout: 1) /* a comment */\n",
    "unclosed.swift": "#if os(Linux)\nimport Glibc\n",
}
GOOD = {
    "guarded.swift": "#if os(Linux)\nimport Glibc\n#if DEBUG\nlet x = O_DIRECT\n#endif\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n",
    "elseGlibc.swift": "#if canImport(Darwin)\nimport Darwin\n#elseif canImport(Glibc)\nimport Glibc\n#endif\n",
    "negated.swift": "#if !canImport(Darwin)\nimport CCurl\n#else\nlet s = \"Glibc in a string\" // Mutex(\n#endif\n",
    "conj.swift": "#if os(Linux) && DEBUG\n_ = fdatasync(0)\n#endif\n/* import Synchronization\n still comment */\n",
}


def self_test():
    with tempfile.TemporaryDirectory() as directory:
        problems = []
        for samples, expect_findings in ((BAD, True), (GOOD, False)):
            for name, text in samples.items():
                path = os.path.join(directory, name)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
                if bool(scan(path)) != expect_findings:
                    problems.append("%s: expected %s, got %s" % (name, "findings" if expect_findings else "none", scan(path)))
        package = {"targets": [
            {"name": "App", "dependencies": [{"byName": ["Shared", None]}, {"target": ["LinuxOnly", {"platformNames": ["linux"]}]},
                                             {"product": ["Crypto", "swift-crypto", None, None]}]},
            {"name": "Shared", "dependencies": []}, {"name": "LinuxOnly", "dependencies": []}]}
        if sorted(n for n, _ in apple_closure(package, ["App"])) != ["App", "Shared"]:
            problems.append("dependency closure: %s" % apple_closure(package, ["App"]))
    for problem in problems:
        print("client-portability self-test: " + problem)
    print("client-portability self-test: %s (%d bad, %d good samples)" % ("FAILED" if problems else "ok", len(BAD), len(GOOD)))
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--self-test"]:
        sys.exit(self_test())
    if sys.argv[1:2] == ["--package"] and len(sys.argv) > 3:
        sys.exit(scan_targets(sys.argv[2], sys.argv[3:]))
    print(__doc__)
    sys.exit(2)

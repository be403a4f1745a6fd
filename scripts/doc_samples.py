#!/usr/bin/env python3
"""Extracts the ```swift samples of docs/*.md and README.md into compilable Swift files.

A sample compiles as written (Foundation and ModeldClient imported), against ModeldClient plus scripts/doc-samples/Prelude.swift (the
names samples take as given: `cache`, `server`, `key`, …). A sample of declarations stays at file
level; one with statements is wrapped in `func sample_<doc>_<line>() async throws` (its imports
hoisted). An HTML comment on the line before the fence says where a sample compiles:

    <!-- sample: apple -->          Apple-only APIs (SwiftUI, UIKit, BackgroundDownloads): not on Linux
    <!-- sample: skip: REASON -->   not compiled at all (a manifest fragment, another library's API)

    doc_samples.py --linux DIR     the samples whose APIs exist on Linux, and the prelude, into DIR
    doc_samples.py --all --package DIR
                                   every sample as a SwiftPM package depending on this repository
                                   (.github/workflows/apple.yml compiles it for the iOS simulator)
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(?:<!-- sample: (?P<marker>[^>]*?) -->\n)?```swift\n(?P<code>.*?)^```$", re.S | re.M)
DECLARATION = re.compile(r"^(?:@\w+\s+)*(?:(?:public|private|final|fileprivate)\s+)*(?:import|class|struct|enum|actor|extension|func|protocol)\b")


def samples():
    """(doc, line, marker, code) of every swift fence, in document order."""
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]:
        text = open(path, encoding="utf-8").read()
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start("code")) + 1
            yield os.path.relpath(path, ROOT), line, (match.group("marker") or "").strip(), match.group("code")


def as_file(doc, line, code):
    """The sample as one Swift file: declarations as they are, statements inside a function."""
    lines = code.splitlines()
    # An app's file imports Foundation and the client; a sample shows only what it adds.
    imports = ["import Foundation", "import ModeldClient"]
    imports += [l for l in lines if l.startswith("import ") and l not in imports]
    body = [l for l in lines if not l.startswith("import ")]
    top_level = [l for l in body if l and not l[0].isspace() and not l.startswith(("//", "}"))]
    name = "sample_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(doc))[0]) + "_%d" % line
    header = "// %s:%d (extracted by scripts/doc_samples.py)\n" % (doc, line)
    if all(DECLARATION.match(l) for l in top_level):
        return name, header + "\n".join(imports + body) + "\n"
    indented = "\n".join(("    " + l) if l else l for l in body)
    return name, header + "\n".join(imports) + "\n\n@MainActor func %s() async throws {\n%s\n}\n" % (name, indented)


def write(directory, chosen):
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".swift"):
            os.remove(os.path.join(directory, name))
    prelude = os.path.join(ROOT, "scripts", "doc-samples", "Prelude.swift")
    with open(prelude, encoding="utf-8") as source, open(os.path.join(directory, "Prelude.swift"), "w") as target:
        target.write(source.read())
    for doc, line, _, code in chosen:
        name, text = as_file(doc, line, code)
        with open(os.path.join(directory, name + ".swift"), "w") as target:
            target.write(text)
    print("%d samples into %s" % (len(chosen), directory))


def main(argv):
    every = list(samples())
    unknown = [(d, l, m) for d, l, m, _ in every if m and m != "apple" and not m.startswith("skip:")]
    if unknown:
        sys.exit("unknown sample markers: %s" % unknown)
    compiled = [s for s in every if not s[2].startswith("skip:")]
    if argv[:1] == ["--linux"] and len(argv) == 2:
        write(argv[1], [s for s in compiled if s[2] != "apple"])
    elif argv[:2] == ["--all", "--package"] and len(argv) == 3:
        package = argv[2]
        write(os.path.join(package, "Sources", "DocSamples"), compiled)
        with open(os.path.join(package, "Package.swift"), "w") as manifest:
            manifest.write('''// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DocSamples",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [.package(name: "modeld", path: %s)],
    targets: [.target(name: "DocSamples", dependencies: [.product(name: "ModeldClient", package: "modeld")])]
)
''' % ('"' + ROOT + '"'))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

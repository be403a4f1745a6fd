// catalog.json's decoding and encoding in memory, the two halves of every offline change
// (SPEC §17.1: a publish ≤ 150 ms at 10,000 releases): `catalog-codec-bench FILE [ROUNDS]`
// prints the median milliseconds of a fresh decode (a new process knows no previous catalog),
// a decode beside the previous version (a reload), and an encode.
import CatalogValue
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2, let bytes = FileManager.default.contents(atPath: arguments[1]).map(Array.init) else {
    FileHandle.standardError.write(Data("usage: catalog-codec-bench CATALOG_JSON [ROUNDS]\n".utf8))
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20

func median(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        times.append(Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15)
    }
    return times.sorted()[rounds / 2]
}

let catalog = try Catalog(decoding: bytes)
var sink = 0
let fresh = try median { sink &+= try Catalog(decoding: bytes).releases.count }
let reload = try median { sink &+= try Catalog(decoding: bytes, previous: catalog).releases.count }
let encode = median { sink &+= catalog.encoded().count }
print(String(format: "%d releases, %d bytes: decode %.1f ms, decode beside previous %.1f ms, encode %.1f ms (median of %d; %d)",
             catalog.releases.count, bytes.count, fresh, reload, encode, rounds, sink % 10))

// swift-tools-version:6.0
// modeld: over-the-air model distribution. One target per job; dependencies point one way:
// shims → shared pure rules (BinaryText, JSONSupport, CivilTime) and DurableFiles → HTTPWire
// (pure) → HTTPServer (sockets) → ModeldCore (routes) → modeld. Domain modules (ModelCatalog,
// EventStore, EgressCost, Guardrails, GuardRuntime) and ModeldConfig never import the socket
// engine; modelctl links neither HTTPServer nor ModeldCore (docs/decisions/shared-modules.md).
import PackageDescription

let package = Package(
    name: "modeld",
    // SPEC §13.1: ModeldClient (and what it links: ModeldSigning, CryptoPrimitives) builds for these.
    // The server targets are Linux-only (epoll, Glibc); the minimums only bind Apple builds.
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "modeld", targets: ["modeld"]),
        .executable(name: "modelctl", targets: ["modelctl"]),
        .library(name: "ModeldClient", targets: ["ModeldClient"]),
        .executable(name: "modeld-client", targets: ["modeld-client"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),  // 1.6: @ParentCommand
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C wrappers for what Glibc does not export (epoll, eventfd, timerfd, signalfd, accept4, sendfile).
        .target(name: "CLinuxShims"),
        .systemLibrary(name: "CLibcrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SHA-256 and Ed25519: CryptoKit on Apple platforms, the system's OpenSSL libcrypto on Linux
        // (already loaded there by libcurl), behind CryptoKit's names (docs/decisions/crypto.md).
        .target(name: "CryptoPrimitives", dependencies: [.target(name: "CLibcrypto", condition: .when(platforms: [.linux]))]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Pure shared vocabulary: hex and base64 of bytes; calendar arithmetic and RFC 3339
        // instants; the strict JSON reader, the one JSON string writer and the ordered JSONWriter.
        .target(name: "BinaryText"),
        .target(name: "CivilTime"),
        .target(name: "JSONSupport", dependencies: ["BinaryText"]),
        // SPEC §2's durable writes (atomic replace, fsync of the directory, mkdir -p) for every
        // writer of state, the client library included (Glibc or Darwin, nothing Linux-only).
        .target(name: "DurableFiles", dependencies: ["BinaryText"]),
        // The one SHA-256 in lowercase hex, of bytes or of a file streamed 1 MiB at a time
        // (server, modelctl, the bucket uploader and the client alike; no Glibc-only call).
        .target(name: "ContentDigest", dependencies: ["BinaryText", "DurableFiles", "CryptoPrimitives"]),

        // Pure HTTP/1.1 vocabulary: parser, serialiser, dates, ETags, ranges, preconditions, gzip.
        .target(name: "HTTPWire", dependencies: ["CZlib", "CivilTime", "JSONSupport"]),
        // The only target that touches sockets.
        .target(name: "HTTPServer", dependencies: ["HTTPWire", "CLinuxShims"]),

        // Selection (SPEC §3, §3.1, §11.2 arms) and the rules document (§9.2): the one
        // implementation modeld's /latest and ModeldClient's local evaluation both run. Pure,
        // no Glibc and no Synchronization: it builds for every platform the client does. It also
        // owns the §4.1 document (ReleaseDocument) both sides write and read (JSONSupport's writer).
        .target(name: "ReleaseSelection", dependencies: ["CryptoPrimitives", "JSONSupport"]),

        // Pure signed-metadata vocabulary (SPEC §12): signature base, key and header formats,
        // pointer, verifier. No Glibc: the client library uses it on Apple platforms too.
        .target(name: "ModeldSigning", dependencies: ["BinaryText", "ReleaseSelection", "CryptoPrimitives"]),

        // Content-defined chunking and the `.chunks` format (SPEC §14), shared by server, modelctl
        // and client so the same bytes give the same list everywhere. Pure, no Glibc (Apple too).
        .target(name: "ChunkList", dependencies: ["CryptoPrimitives"]),
        // MDPACK1 byte- and bit-plane coding of packed files and patches (SPEC §16), pure: the
        // encoder, the streaming decoder, the header and index. Shared by server, modelctl and
        // client like ChunkList; zlib through the shim (the system libz on Apple platforms).
        .target(name: "TensorPack", dependencies: ["CZlib", "CryptoPrimitives"]),
        // MDPACK1 between files, block by block in bounded memory (modelctl pack/patch/unpack; a
        // patch's base for the server and the client). No Glibc-only call: the client links it.
        .target(name: "TensorPackFiles", dependencies: ["BinaryText", "ContentDigest", "DurableFiles", "TensorPack"]),

        // The catalog as a value (SPEC §2, §3): releases, variants, their field rules and JSON,
        // the changes a writer applies, the selection snapshot and live view. Pure — no files,
        // no locks — like Guardrails beside GuardRuntime.
        .target(name: "CatalogValue", dependencies: [
            "BinaryText", "ChunkList", "CivilTime", "ContentDigest", "Guardrails", "HTTPWire", "JSONSupport", "ModeldSigning",
            "ReleaseSelection", "CryptoPrimitives",
        ]),
        // The catalog on disk: the store (publish lock, atomic writes, uploads), the watcher, rules
        // files, signed details, derivation runs; re-exports CatalogValue.
        .target(name: "ModelCatalog", dependencies: [
            "BinaryText", "CatalogValue", "ChunkList", "CLinuxShims", "CivilTime", "ContentDigest", "DurableFiles", "Guardrails", "HTTPWire", "JSONSupport", "ModeldSigning",
            "ReleaseSelection", "TensorPackFiles", "CryptoPrimitives", "ZipArchive",
        ]),
        .target(name: "EventStore", dependencies: [
            "CLinuxShims", "CivilTime", "DurableFiles", "JSONSupport",
            "CryptoPrimitives",
        ]),
        .target(name: "EgressCost", dependencies: ["CivilTime", "JSONSupport", "HTMLPage"]),
        // Guarded rollouts (SPEC §11), the pure part: the guard plan, per-client running sums,
        // the sequential bound, SRM and decisions. No I/O; time is passed in.
        // The frame (CSS, escaping, cards) shared by the HTML reports of EgressCost and Guardrails.
        .target(name: "HTMLPage"),
        .target(name: "Guardrails", dependencies: ["HTMLPage", "JSONSupport", "CivilTime"]),

        // libcurl easy handle and transfer callbacks, shared by modelctl's clients and ModeldClient on Linux.
        .target(name: "CurlTransport", dependencies: ["CCurl"]),
        // Pure S3 vocabulary: canonical URLs, request values, XML answers, part plans, retries.
        .target(name: "ObjectStorage", dependencies: ["BinaryText", "ContentDigest", "CryptoPrimitives"]),
        // The S3 client: sends ObjectStorage requests through libcurl's SigV4 signer.
        .target(name: "ObjectStorageCurl", dependencies: [
            "BinaryText", "ContentDigest", "DurableFiles", "ObjectStorage", "CurlTransport", "CCurl", "CryptoPrimitives",
        ]),
        // Pure planning of `modelctl mirror`: which catalog objects go to the bucket, in what order.
        .target(name: "ModelMirror", dependencies: ["ModelCatalog", "ObjectStorage"]),
        // Runs a mirror plan against a bucket: HEADs, uploads in plan order, the resumable
        // multipart journal and the deletion schedule under models/.mirror/, the --watch loop.
        .target(name: "BucketMirror", dependencies: [
            "ContentDigest", "CurlTransport", "DurableFiles", "ModelCatalog", "ModelMirror", "ObjectStorage", "ObjectStorageCurl",
        ]),
        // `events ship` and its inverse: sealed segments gzipped to a bucket once each (the
        // shipped.jsonl ledger), and shipped segments read back for `events export --from`.
        // EventStore itself knows no bucket.
        .target(name: "EventShipping", dependencies: [
            "CivilTime", "CLinuxShims", "ContentDigest", "CZlib", "DurableFiles", "EventStore", "ObjectStorage", "ObjectStorageCurl",
        ]),

        // modeld's configuration (SPEC §8: defaults < config/modeld.json < MODELD_* env < flags)
        // and the admin token file: read by modeld and, for its defaults, by modelctl.
        .target(name: "ModeldConfig", dependencies: ["BinaryText", "DurableFiles"]),
        // Guarded rollouts, the files: experiments from the catalog, the event tail, the decision
        // log and state files, the §11.5 status document. Shared by modeld's evaluator and
        // modelctl (offline status, manual overrides); no sockets, no scheduling.
        .target(name: "GuardRuntime", dependencies: ["DurableFiles", "EventStore", "Guardrails", "HTTPWire", "JSONSupport", "ModelCatalog", "ReleaseSelection"]),
        // Seeded generators (SplitMix64, xoshiro256**): the same numbers on every machine, for
        // simulations that replay from their seed (the fleet simulator's and the tests').
        .target(name: "Randomness"),
        // `modelctl experiment simulate` (SPEC §11.6), the pure part: a fleet in virtual time
        // (calendar queue, flat per-client arrays) driving GuardRuntime's arm rule and
        // Guardrails' accumulator and engine. No I/O.
        .target(name: "GuardSimulation", dependencies: ["CivilTime", "GuardRuntime", "Guardrails", "JSONSupport", "Randomness", "ReleaseSelection"]),

        // Named tokens and roles (SPEC §15.1): the book of hashed tokens, `data/tokens.json` under
        // its lock, and the server's cache of it. Shared by modeld and `modelctl tokens --data-dir`.
        .target(name: "AccessTokens", dependencies: ["BinaryText", "CivilTime", "CLinuxShims", "ContentDigest", "DurableFiles", "JSONSupport"]),

        // The operator console (SPEC §15), the pure part: sessions, sign-in throttle, audit lines,
        // the server-rendered views and the embedded script and stylesheet. No sockets.
        .target(name: "Console", dependencies: [
            "AccessTokens", "BinaryText", "ContentDigest", "HTMLPage", "Guardrails", "JSONSupport", "ModelCatalog", "EventStore", "EgressCost",
            "CryptoPrimitives",
        ]),

        // Composition root: routes, metrics, access log, the guard evaluator's loop, lifecycle.
        .target(name: "ModeldCore", dependencies: [
            "AccessTokens", "BinaryText", "DurableFiles", "GuardRuntime", "ModeldConfig", "HTTPWire", "HTTPServer", "ModelCatalog", "ModeldSigning", "EventStore", "Guardrails", "CivilTime", "CLinuxShims", "JSONSupport",
            "Console", "EgressCost", "EventShipping", "ObjectStorage", "ObjectStorageCurl",
            .product(name: "Logging", package: "swift-log"),
            "CryptoPrimitives",
        ]),
        .executableTarget(name: "modeld", dependencies: ["ModeldCore", "ModeldConfig", "CLinuxShims"]),
        // ModeldConfig: modelctl reads ./config/modeld.json with modeld's own rules. Never
        // ModeldCore or HTTPServer: the CLI does not link the server.
        .executableTarget(name: "modelctl", dependencies: [
            "AccessTokens", "ModelCatalog", "ModeldSigning", "EventStore", "EgressCost", "Guardrails", "GuardRuntime", "GuardSimulation", "JSONSupport", "ModeldConfig", "CivilTime", "CCurl", "CurlTransport",
            "BucketMirror", "ContentDigest", "EventShipping", "ModelMirror", "ObjectStorage", "ObjectStorageCurl", "ChunkList",
            "TensorPack", "TensorPackFiles", "CommandLineArguments",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            "CryptoPrimitives",
        ]),
        // The command-line rewriting both CLIs share (SPEC §7: negative numbers as option values).
        .target(name: "CommandLineArguments"),

        // MDPACK1 decoding speed in memory beside one SHA-256 pass and zlib (Benchmarks/transfer/run.sh).
        .executableTarget(name: "pack-decode-bench", dependencies: ["TensorPack", "CZlib", "CryptoPrimitives"],
                          path: "Benchmarks/transfer/PackDecodeBench"),

        // catalog.json decoding and encoding in memory (Benchmarks/catalog/run.sh).
        .executableTarget(name: "catalog-codec-bench", dependencies: ["CatalogValue"], path: "Benchmarks/catalog/CodecBench"),

        // A zip reader (SPEC §13.1 zipped models): central directory first, every refusal before
        // unpacking; raw inflate through zlib (the system libz on Apple platforms). No Glibc.
        .target(name: "ZipArchive", dependencies: ["CZlib"]),

        // The reference client apps embed (SPEC §13): CryptoPrimitives, ModeldSigning; libcurl on Linux
        // (FoundationNetworking cannot pace a download to the disk), URLSession elsewhere;
        // CLinuxShims for sync_file_range. Apple builds are kept by scripts/checks/client-portability.sh.
        .target(name: "ModeldClient", dependencies: [
            "BinaryText", "ChunkList", "CivilTime", "ContentDigest", "DurableFiles", "ModeldSigning", "ReleaseSelection", "TensorPack", "TensorPackFiles", "ZipArchive",
            .target(name: "CurlTransport", condition: .when(platforms: [.linux])),
            .target(name: "CCurl", condition: .when(platforms: [.linux])),
            .target(name: "CLinuxShims", condition: .when(platforms: [.linux])),
            "CryptoPrimitives",
        ], resources: [.copy("PrivacyInfo.xcprivacy")]),  // Apple's privacy manifest (SPEC §13.1)
        .executableTarget(name: "modeld-client", dependencies: [
            "CommandLineArguments", "ModeldClient", "ReleaseSelection",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // The raw-socket HTTP client every test target that talks to a server shares.
        .target(name: "HTTPTestSupport", dependencies: ["HTTPWire"], path: "Tests/Support/HTTPTestSupport"),
        // The shared selection vectors (Tests/Fixtures/selection-cases.json), decoded for the
        // server's and the client's tests alike.
        .target(name: "SelectionVectors", dependencies: ["ReleaseSelection"], path: "Tests/Support/SelectionVectors"),
        // The one way tests start child processes (bounded waits, one environment hygiene).
        .target(name: "ChildProcesses", path: "Tests/Support/ChildProcesses"),
        // The shipped nginx front as a child process (IntegrationTests, the RGW suite's ingest tier).
        .target(name: "NginxProxySupport", dependencies: ["ChildProcesses"], path: "Tests/Support/NginxProxySupport"),
        // The seeded generators (Randomness) for reproducible tests and simulations.
        .target(name: "TestRandomness", dependencies: ["Randomness"], path: "Tests/Support/TestRandomness"),
        // Rewrites a mirror journal through MirrorJournal until SIGKILLed (MirrorJournalCrashTests).
        .executableTarget(name: "mirror-journal-loop", dependencies: ["BucketMirror", "ModelMirror"], path: "Tests/Support/MirrorJournalLoop"),
        // Appends numbered lines through DurableFile.appendLine until SIGKILLed (DurableAppendCrashTests).
        .executableTarget(name: "durable-append-loop", dependencies: ["DurableFiles"], path: "Tests/Support/DurableAppendLoop"),
        // A bucket in a directory, for the in-process tests of BucketMirror and EventShipping.
        .target(name: "DirectoryBucket", dependencies: ["ContentDigest", "CurlTransport", "ObjectStorage", "ObjectStorageCurl"], path: "Tests/Support/DirectoryBucket"),
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"]),
        .testTarget(name: "BinaryTextTests", dependencies: ["BinaryText"]),
        .testTarget(name: "CryptoPrimitivesTests", dependencies: ["CryptoPrimitives", "BinaryText"]),
        .testTarget(name: "JSONSupportTests", dependencies: ["JSONSupport"]),
        .testTarget(name: "DurableFilesTests", dependencies: ["DurableFiles"]),
        .testTarget(name: "HTTPWireTests", dependencies: ["HTTPWire", "CivilTime"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPWire", "HTTPTestSupport", "CLinuxShims"]),
        .testTarget(name: "ModelCatalogTests", dependencies: ["CatalogValue", "ModelCatalog", "JSONSupport", "Guardrails", "ModeldSigning", "ChunkList", "ReleaseSelection", "SelectionVectors", "TestRandomness"]),
        .testTarget(name: "ModeldSigningTests", dependencies: ["ModeldSigning"]),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "DurableFiles", "JSONSupport"]),
        .testTarget(name: "EgressCostTests", dependencies: ["EgressCost", "JSONSupport"]),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ContentDigest", "ObjectStorage"], exclude: ["Fixtures"]),
        .testTarget(name: "ChunkListTests", dependencies: ["ChunkList", "TestRandomness", "CryptoPrimitives"]),
        .testTarget(name: "TensorPackTests", dependencies: ["TensorPack", "TestRandomness", "CryptoPrimitives"]),
        .testTarget(name: "ModelMirrorTests", dependencies: ["ModelMirror", "ModelCatalog"]),
        .testTarget(name: "BucketMirrorTests", dependencies: ["BucketMirror", "DirectoryBucket", "ModelCatalog", "ModelMirror"]),
        .testTarget(name: "EventShippingTests", dependencies: ["ContentDigest", "EventShipping", "DirectoryBucket", "EventStore", "ObjectStorage"]),
        // The S3 client against a real Ceph RGW started by scripts/rgw.sh, and a fault server.
        .testTarget(name: "ObjectStorageRGWTests", dependencies: ["ChildProcesses", "HTTPTestSupport", "NginxProxySupport", "ContentDigest", "ObjectStorageCurl", "ObjectStorage", "ModelCatalog", "TestRandomness"]),
        // Fixtures/ holds the gbstats/mpmath reference vectors (scripts/guard-vectors.py), read by path.
        .testTarget(name: "GuardrailsTests", dependencies: ["Guardrails", "TestRandomness"], exclude: ["Fixtures"]),
        .testTarget(name: "GuardSimulationTests", dependencies: ["GuardSimulation", "GuardRuntime", "Guardrails", "JSONSupport"]),
        .testTarget(name: "ModeldCoreTests", dependencies: ["AccessTokens", "Console", "ModeldCore", "ModeldConfig", "HTTPWire", "HTTPServer", "ModelCatalog", "GuardRuntime", "Guardrails"]),
        .testTarget(name: "ConsoleTests", dependencies: ["AccessTokens", "Console", "Guardrails", "ModelCatalog"]),
        .testTarget(name: "AccessTokensTests", dependencies: ["AccessTokens", "ContentDigest", "DurableFiles"]),
        // Boots the real modeld/modelctl binaries and talks to them with real clients.
        .testTarget(name: "ModeldClientTests", dependencies: ["ChunkList", "ContentDigest", "ModeldClient", "BinaryText", "CivilTime", "ReleaseSelection", "SelectionVectors"]),
        .testTarget(name: "CommandLineArgumentsTests", dependencies: ["CommandLineArguments"]),
        .testTarget(name: "ZipArchiveTests", dependencies: ["ChildProcesses", "ZipArchive"]),
        // Guardrails for h₁ only: the guard tests recompute every other figure themselves.
        .testTarget(name: "IntegrationTests", dependencies: [
            "ChildProcesses", "NginxProxySupport", "CivilTime", "HTTPWire", "HTTPTestSupport", "CLinuxShims", "DurableFiles", "ModeldSigning", "ModeldClient", "TestRandomness", "Guardrails", "BucketMirror",
            "ReleaseSelection",  // RulesCrossCheckTests decodes snapshots itself (the client no longer re-exports it)
            "SelectionVectors",  // the selection vectors (CheckServerTests) and the release field table (ReleaseFieldCLITests)
            // Router.table, which RouteTableConductTests walks against the real binary.
            "HTTPServer", "ModeldCore",
        ]),
    ]
)

// Apple CI (.github/workflows/apple.yml) builds and tests the client alone: the server targets
// are Linux-only (epoll, Glibc), and `swift test` on macOS would otherwise build them too. The
// closure of the client's targets is computed, so a new dependency needs no edit here.
if Context.environment["MODELD_CLIENT_ONLY"] == "1" {
    let roots: Set<String> = ["ModeldClient", "modeld-client", "ModeldClientTests"]
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var keep = Set<String>()
    var queue = Array(roots)
    while let name = queue.popLast() {
        guard keep.insert(name).inserted, let target = byName[name] else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): queue.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !keep.contains($0.name) }
    package.products.removeAll { !roots.contains($0.name) }
}

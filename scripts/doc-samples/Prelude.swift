// The names the docs' Swift samples take as given (scripts/doc_samples.py compiles each sample
// with this file): an app's cache directory, its server, its trusted key, a progress bar.
import Foundation
import ModeldClient

let cache = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("modeld")
let appSupport = cache
let server = URL(string: "https://models.example.com")!
let bundledPubFile = "modeld-ed25519-public-v1 AAAA keyid=0000000000000000"
let key = try! TrustedPublicKey(publicKey: Data(repeating: 7, count: 32))
let trustedKey = key
let oldID = "00000000-0000-0000-0000-000000000001"
let blockedID = "00000000-0000-0000-0000-000000000002"
let bundledModelURL = cache.appendingPathComponent("bundled.mlmodelc")

@MainActor final class ProgressBar { var progress: Float = 0 }
@MainActor let bar = ProgressBar()

func load(_ model: URL) {}

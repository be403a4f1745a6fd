import BinaryText
import Crypto

enum Digest {
    static func sha256Hex(_ bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(data: bytes)) }
}

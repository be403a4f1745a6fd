#if canImport(CryptoKit)
import CryptoKit

// On Apple platforms the system's CryptoKit (iOS 13, macOS 10.15, tvOS 13, watchOS 6): the
// Linux types in this module mirror the part of its API this package uses, so callers compile
// against either unchanged.
public typealias SHA256 = CryptoKit.SHA256
public typealias Curve25519 = CryptoKit.Curve25519
#endif

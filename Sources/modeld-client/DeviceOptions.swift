import ArgumentParser
import ModeldClient

/// `--platform --os --ram-mb --device --system-model`: the device attributes of SPEC §3.1 and §3.2, validated by the
/// same rules the server applies to its query. check/update/status send these over what the OS
/// reports (SPEC §13.1); simulate and evaluate use only what is given.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Device platform for variants ([a-z0-9_-]{1,32}, e.g. ios, linux).") var platform: String?
    @Option(help: "OS version for variants (MAJOR[.MINOR[.PATCH]]).") var os: String?
    @Option(help: "RAM in MiB for variants (0–10000000).") var ramMb: String?
    @Option(help: "Device model identifier for variants (1–64 printable ASCII, e.g. iPhone16,2).") var device: String?
    @Option(help: "OS-provided model version for adapters ([A-Za-z0-9._-]{1,32}, e.g. 26.1).") var systemModel: String?

    func validate() throws { _ = try attributes() }

    /// The flags given, each replacing `base`'s attribute (a client reads `base` from the OS;
    /// simulated and evaluated devices are only what the flags say).
    func attributes(over base: DeviceAttributes = .none) throws -> DeviceAttributes {
        let given: DeviceAttributes
        do { given = try DeviceAttributes(parsing: platform, os: os, ramMB: ramMb, device: device, systemModel: systemModel) } catch {
            throw ValidationError("--\(error.parameter.replacingOccurrences(of: "_", with: "-")) \(error.message)")
        }
        return DeviceAttributes(platform: given.platform ?? base.platform, os: given.os ?? base.os,
                                ramMB: given.ramMB ?? base.ramMB, device: given.device ?? base.device,
                                systemModel: given.systemModel ?? base.systemModel)
    }
}

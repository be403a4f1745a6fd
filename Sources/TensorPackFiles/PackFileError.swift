import DurableFiles
import TensorPack

/// Why packing, patching or decoding files failed: the file system, or the MDPACK1 data.
public enum PackFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case io(IOFailure)
    /// The MDPACK1 file at the path was refused.
    case pack(String, PackError)
    /// The file is larger than an MDPACK1 file describes.
    case tooLarge(String, Int64)
    /// The file ended before the size it had when the work began.
    case changed(String)

    public var description: String {
        switch self {
        case .io(let failure): failure.description
        case .pack(let path, let error): "\(path): \(error)"
        case .tooLarge(let path, let size): "\(path) is \(size) bytes, over MDPACK1's \(PackHeader.maxOutputSize)-byte limit"
        case .changed(let path): "\(path) became shorter while it was read"
        }
    }
}

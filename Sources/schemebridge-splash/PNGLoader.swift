import CPNG
import Glibc

/// Reading PNG files with libpng's simplified API.
enum PNGLoader {
    /// The largest accepted side, in pixels.
    static let maxSide = 16_384
    /// The largest accepted area: 8K (7680×4320) fits; 128 MiB of RGBA at most.
    static let maxPixels = 32 * 1024 * 1024
    /// The largest accepted file.
    static let maxFileBytes = 64 * 1024 * 1024

    /// Loads `path` as 8-bit RGBA (libpng converts every PNG colour type and depth, and
    /// 16-bit or gamma-tagged images to sRGB). Throws ``ExitStatus/badImage`` with a message for
    /// anything that is not a readable PNG of an acceptable size.
    static func load(path: String) throws(SplashFailure) -> RGBAImage {
        func fail(_ why: String) -> SplashFailure { SplashFailure(.badImage, "cannot use image \(path): \(why)") }

        // Refuse what is not a regular file before libpng opens it (a FIFO would block).
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw fail("not a regular file") }
        guard info.st_size <= maxFileBytes else { throw fail("file larger than \(maxFileBytes) bytes") }

        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_file(&image, path) != 0 else { throw fail(message(of: &image)) }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw fail("empty image") }
        guard width <= maxSide, height <= maxSide, width * height <= maxPixels else {
            throw fail("\(width)x\(height) is too large (at most \(maxSide) per side and \(maxPixels) pixels)")
        }
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let ok = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, Int32(width * 4), nil)
        }
        guard ok != 0 else { throw fail(message(of: &image)) }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// libpng's message for the last failure.
    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return text.isEmpty ? "not a PNG file" : text
    }
}

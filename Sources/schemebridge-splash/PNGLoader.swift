import CPNG
import Glibc

/// Reading PNG files with libpng's simplified API.
enum PNGLoader {
    /// The largest accepted side, in pixels.
    static let maxSide = 8192
    /// The largest accepted area: 2^23 pixels (4K UHD, 3840×2160, fits), 32 MiB of RGBA at
    /// most — a few helpers at once stay far below a gigabyte whatever their images claim.
    static let maxPixels = 8 * 1024 * 1024
    /// The largest accepted file.
    static let maxFileBytes = 64 * 1024 * 1024

    /// The size an image's IHDR claims, read from the file's first 24 bytes before any decoder
    /// sees it; nil when the file does not start like a PNG.
    static func headerSize(_ fd: Int32) -> (width: Int, height: Int)? {
        var header = [UInt8](repeating: 0, count: 24)
        let n = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 24, 0) }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard n == 24, Array(header[0..<8]) == signature, Array(header[12..<16]) == Array("IHDR".utf8) else { return nil }
        func be(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// Why `width`×`height` cannot be used, or nil when it can.
    static func sizeProblem(width: Int, height: Int) -> String? {
        if width <= 0 || height <= 0 { return "empty image" }
        if width > maxSide || height > maxSide || width * height > maxPixels {
            return "\(width)x\(height) is too large (at most \(maxSide) per side and \(maxPixels) pixels)"
        }
        return nil
    }

    /// Loads `path` as 8-bit RGBA (libpng converts every PNG colour type and depth, and
    /// 16-bit or gamma-tagged images to sRGB). Throws ``ExitStatus/badImage`` with a message for
    /// anything that is not a readable PNG of an acceptable size.
    static func load(path: String) throws(SplashFailure) -> RGBAImage {
        func fail(_ why: String) -> SplashFailure { SplashFailure(.badImage, "cannot use image \(path): \(why)") }

        // Refuse what is not a regular file before libpng opens it (a FIFO would block), and
        // what claims too many pixels before anything is decoded or allocated.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw fail("not a regular file") }
        guard info.st_size <= maxFileBytes else { throw fail("file larger than \(maxFileBytes) bytes") }
        guard let claimed = headerSize(fd) else { throw fail("not a PNG file") }
        if let problem = sizeProblem(width: claimed.width, height: claimed.height) { throw fail(problem) }
        guard let file = fdopen(dup(fd), "rb") else { throw fail(String(cString: strerror(errno))) }
        defer { fclose(file) }

        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_stdio(&image, file) != 0 else { throw fail(message(of: &image)) }
        let width = Int(image.width), height = Int(image.height)
        if let problem = sizeProblem(width: width, height: height) { throw fail(problem) }
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

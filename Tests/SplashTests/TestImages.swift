import CPNG
import Foundation

/// PNG files for the tests, written with libpng's simplified write API.
enum TestImages {
    /// An RGBA image (not premultiplied) built pixel by pixel.
    struct Image {
        let width: Int, height: Int
        var rgba: [UInt8]

        init(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) {
            self.width = width
            self.height = height
            rgba = []
            rgba.reserveCapacity(width * height * 4)
            for y in 0..<height { for x in 0..<width { rgba += pixel(x, y) } }
        }

        /// The colour a user sees for (x, y) when the image is composed over black:
        /// `(c·a + 127) / 255` per channel, the helper's documented rule.
        func overBlack(_ x: Int, _ y: Int) -> [UInt8] {
            let o = (y * width + x) * 4
            let a = Int(rgba[o + 3])
            return (0..<3).map { UInt8((Int(rgba[o + $0]) * a + 127) / 255) }
        }
    }

    /// Writes `image` as an 8-bit RGBA PNG at `path`.
    static func write(_ image: Image, to path: String) throws {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        let ok = image.rgba.withUnsafeBytes { raw in
            png_image_write_to_file(&png, path, 0, raw.baseAddress, Int32(image.width * 4), nil)
        }
        png_image_free(&png)
        guard ok != 0 else { throw TestFailure("cannot write PNG \(path)") }
    }

    /// 160×120: opaque red, green and blue areas, white at alpha 128, (200,100,50) at alpha 64, and
    /// a 40×60 patch where colour and alpha vary per pixel (every alpha from 0 to 255 occurs).
    static let pattern = Image(width: 160, height: 120) { x, y in
        switch (x, y) {
        case (0..<80, 0..<60): return [255, 0, 0, 255]
        case (80..., 0..<60): return [0, 255, 0, 255]
        case (0..<40, _): return [0, 0, 255, 255]
        case (40..<80, _): return [255, 255, 255, 128]
        case (80..<120, _): return [200, 100, 50, 64]
        default: return [UInt8(x * 3 % 256), UInt8(y * 2 % 256), UInt8((x + y) % 256), UInt8((x * 7 + y * 13) % 256)]
        }
    }

    /// A small opaque image for the take-down tests.
    static let plain = Image(width: 120, height: 90) { x, _ in x < 60 ? [30, 144, 255, 255] : [255, 215, 0, 255] }
}

/// A test failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

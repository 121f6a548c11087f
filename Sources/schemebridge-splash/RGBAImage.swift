/// An 8-bit RGBA image, not premultiplied, rows top to bottom without padding.
struct RGBAImage {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height * 4` bytes: R, G, B, A.
    var pixels: [UInt8]

    /// Whether every pixel is fully opaque (then nothing beneath the window shows through).
    var isOpaque: Bool {
        var index = 3
        while index < pixels.count {
            if pixels[index] != 255 { return false }
            index += 4
        }
        return true
    }
}

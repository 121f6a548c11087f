/// An 8-bit RGBA image, not premultiplied, rows top to bottom without padding.
struct RGBAImage {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height * 4` bytes: R, G, B, A.
    var pixels: [UInt8]
}

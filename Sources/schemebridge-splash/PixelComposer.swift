import CX11
import Glibc

/// A TrueColor visual's channel layout, from its masks.
struct PixelLayout {
    /// Shift and width in bits of red, green and blue.
    let red: (shift: Int, bits: Int)
    let green: (shift: Int, bits: Int)
    let blue: (shift: Int, bits: Int)

    /// The layout of `visual`; nil unless it is TrueColor (or DirectColor, treated alike with the
    /// default colormap's identity ramp, which is what X servers install).
    init?(visual: UnsafeMutablePointer<Visual>) {
        let v = visual.pointee
        guard v.`class` == TrueColor || v.`class` == DirectColor else { return nil }
        func channel(_ mask: UInt) -> (Int, Int)? {
            guard mask != 0 else { return nil }
            return (mask.trailingZeroBitCount, mask.nonzeroBitCount)
        }
        guard let r = channel(v.red_mask), let g = channel(v.green_mask), let b = channel(v.blue_mask) else { return nil }
        red = r; green = g; blue = b
    }

    /// The pixel value of an 8-bit colour.
    @inline(__always)
    func pack(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt {
        func scale(_ v: UInt32, _ c: (shift: Int, bits: Int)) -> UInt {
            let value = c.bits == 8 ? UInt(v) : (UInt(v) * ((1 << UInt(c.bits)) - 1) + 127) / 255
            return value << UInt(c.shift)
        }
        return scale(r, red) | scale(g, green) | scale(b, blue)
    }

    /// The 8-bit colour of a pixel value.
    @inline(__always)
    func unpack(_ pixel: UInt) -> (UInt32, UInt32, UInt32) {
        func scale(_ c: (shift: Int, bits: Int)) -> UInt32 {
            let max = (UInt(1) << UInt(c.bits)) - 1
            let value = (pixel >> UInt(c.shift)) & max
            return c.bits == 8 ? UInt32(value) : UInt32((value * 255 + max / 2) / max)
        }
        return (scale(red), scale(green), scale(blue))
    }
}

/// Composes the RGBA image over the screen content beneath it into an XImage of the window's
/// visual. The composition is the exact integer "over" operator per channel:
/// `out = (c·a + bg·(255 − a) + 127) / 255`, so opaque pixels arrive unchanged (pixel exact) and
/// the screen beneath shows through transparent ones as it was when the image was mapped.
enum PixelComposer {
    /// Writes `image` over `target` (an XImage of `image`'s size holding the background) in place.
    static func compose(_ image: RGBAImage, into target: UnsafeMutablePointer<XImage>, layout: PixelLayout) {
        let w = image.width, h = image.height
        let ximage = target.pointee
        let hostOrder: Int32 = 1.littleEndian == 1 ? LSBFirst : MSBFirst
        let direct = ximage.bits_per_pixel == 32 && ximage.byte_order == hostOrder && ximage.format == ZPixmap
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                let row: UnsafeMutablePointer<UInt32>? = direct
                    ? UnsafeMutableRawPointer(ximage.data + y * Int(ximage.bytes_per_line)).assumingMemoryBound(to: UInt32.self)
                    : nil
                for x in 0..<w {
                    let p = (y * w + x) * 4
                    let r = UInt32(src[p]), g = UInt32(src[p + 1]), b = UInt32(src[p + 2]), a = UInt32(src[p + 3])
                    let pixel: UInt
                    if a == 255 {
                        pixel = layout.pack(r, g, b)
                    } else {
                        let old = row.map { UInt($0[x]) } ?? target.pointee.f.get_pixel(target, Int32(x), Int32(y))
                        let (br, bg, bb) = layout.unpack(old)
                        let ia = 255 - a
                        pixel = layout.pack((r * a + br * ia + 127) / 255, (g * a + bg * ia + 127) / 255, (b * a + bb * ia + 127) / 255)
                    }
                    if let row {
                        row[x] = UInt32(truncatingIfNeeded: pixel)
                    } else {
                        _ = target.pointee.f.put_pixel(target, Int32(x), Int32(y), pixel)
                    }
                }
            }
        }
    }
}

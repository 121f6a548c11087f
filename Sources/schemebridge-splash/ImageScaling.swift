/// Fitting an image to the screen: area-averaging (box filter) downscaling in premultiplied
/// alpha, so transparent pixels never bleed their colour into their neighbours, and cropping.
extension RGBAImage {
    /// This image scaled down to fit `maxWidth`×`maxHeight` keeping its aspect ratio, or itself
    /// when it fits already.
    func scaledToFit(maxWidth: Int, maxHeight: Int) -> RGBAImage {
        guard width > maxWidth || height > maxHeight else { return self }
        let scale = min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        let w = min(maxWidth, max(1, Int((Double(width) * scale).rounded())))
        let h = min(maxHeight, max(1, Int((Double(height) * scale).rounded())))
        return resized(toWidth: w, height: h)
    }

    /// The centre `maxWidth`×`maxHeight` part of this image (or less where it is smaller).
    func cropped(toWidth maxWidth: Int, height maxHeight: Int) -> RGBAImage {
        guard width > maxWidth || height > maxHeight else { return self }
        let w = min(width, maxWidth), h = min(height, maxHeight)
        let x0 = (width - w) / 2, y0 = (height - h) / 2
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let src = ((y0 + y) * width + x0) * 4
            out.replaceSubrange(y * w * 4..<(y + 1) * w * 4, with: pixels[src..<src + w * 4])
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }

    /// For each output index, the source indices it covers and their weights (summing to 1):
    /// output pixel i covers source interval [i·s, (i+1)·s) with s = source/output ≥ 1.
    private static func boxWeights(source: Int, output: Int) -> [(first: Int, weights: [Float])] {
        let scale = Double(source) / Double(output)
        return (0..<output).map { i in
            let start = Double(i) * scale, end = min(Double(source), Double(i + 1) * scale)
            let first = Int(start)
            var weights: [Float] = []
            var j = first
            while Double(j) < end && j < source {
                let covered = min(end, Double(j + 1)) - max(start, Double(j))
                if covered > 0 { weights.append(Float(covered / (end - start))) } else { weights.append(0) }
                j += 1
            }
            return (first, weights)
        }
    }

    /// This image resampled to `w`×`h` (both at most the current size) by area averaging.
    func resized(toWidth w: Int, height h: Int) -> RGBAImage {
        let columns = Self.boxWeights(source: width, output: w)
        let rows = Self.boxWeights(source: height, output: h)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        // One horizontally filtered source row at a time, premultiplied.
        var filtered = [Float](repeating: 0, count: w * 4)
        var accumulator = [Float](repeating: 0, count: w * 4)
        pixels.withUnsafeBufferPointer { src in
            for (outY, row) in rows.enumerated() {
                for k in 0..<accumulator.count { accumulator[k] = 0 }
                for (dy, rowWeight) in row.weights.enumerated() where rowWeight > 0 {
                    let sy = row.first + dy
                    let base = sy * width * 4
                    for (outX, column) in columns.enumerated() {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for (dx, weight) in column.weights.enumerated() {
                            let p = base + (column.first + dx) * 4
                            let alpha = Float(src[p + 3]) * weight
                            r += Float(src[p]) * alpha
                            g += Float(src[p + 1]) * alpha
                            b += Float(src[p + 2]) * alpha
                            a += alpha
                        }
                        filtered[outX * 4] = r; filtered[outX * 4 + 1] = g
                        filtered[outX * 4 + 2] = b; filtered[outX * 4 + 3] = a
                    }
                    for k in 0..<accumulator.count { accumulator[k] += filtered[k] * rowWeight }
                }
                for x in 0..<w {
                    let a = accumulator[x * 4 + 3]
                    let o = (outY * w + x) * 4
                    guard a > 0 else { continue }  // fully transparent: stays 0,0,0,0
                    for c in 0..<3 { out[o + c] = UInt8(min(255, max(0, (accumulator[x * 4 + c] / a).rounded()))) }
                    out[o + 3] = UInt8(min(255, max(0, a.rounded())))
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}

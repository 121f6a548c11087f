# Writes an RGBA PNG, one grey, of W x H with D (8 or 16) bits per channel to PATH: fully
# decodable, tiny on disk however large it is decoded. argv: W, H, D, PATH.
import struct, sys, zlib
w, h, d, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)
raw = (b'\0' + b'\x80' * (w * 4 * d // 8)) * h
with open(path, 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, d, 6, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))

import Glibc

/// The generated part of the agreement set: files whose type only their content tells
/// (extension-less, starting like a known format), names whose patterns conflict (several
/// types for one extension) with contents that do or do not settle it, names that exercise the
/// glob rules, the text/binary heuristics, and files that are not regular files.
enum ContentTypeSamples {
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func hex(_ s: String) -> [UInt8] { s.split(separator: " ").map { UInt8($0, radix: 16)! } }
    static func zeros(_ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: n) }
    /// `bytes` padded with zeros to `length`.
    static func padded(_ bytes: [UInt8], to length: Int) -> [UInt8] { bytes + zeros(max(0, length - bytes.count)) }

    static let textLines = ascii("hello world\nthis is some plain text, nothing special\n")
    static let binaryJunk: [UInt8] = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }

    static func elf(type: UInt8) -> [UInt8] {
        padded(hex("7f 45 4c 46 02 01 01 00 00 00 00 00 00 00 00 00") + [type, 0, 0x3e, 0, 1, 0, 0, 0], to: 256)
    }

    static func zip(firstName: String, content: String = "") -> [UInt8] {
        let name = ascii(firstName)
        return ascii("PK") + hex("03 04 14 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")
            + [UInt8(name.count), 0, 0, 0] + name + ascii(content) + binaryJunk.prefix(64)
    }

    static func riff(_ kind: String, _ chunk: String) -> [UInt8] {
        ascii("RIFF") + hex("24 08 00 00") + ascii(kind) + ascii(chunk) + binaryJunk.prefix(100)
    }

    static func ogg(_ codec: [UInt8]) -> [UInt8] {
        ascii("OggS") + hex("00 02 00 00 00 00 00 00 00 00 01 02 03 04 00 00 00 00 aa bb cc dd 01 1e") + codec + binaryJunk.prefix(80)
    }

    static var tar: [UInt8] {
        var header = padded(ascii("file.txt"), to: 100) + padded(ascii("0000644"), to: 157)
        header = padded(header, to: 257) + ascii("ustar  ") + [0]
        return padded(header, to: 1024)
    }

    static var transportStream: [UInt8] {
        (0..<8).flatMap { _ in [0x47] + [UInt8](repeating: 0x11, count: 187) }
    }

    /// Content that starts like a known format (the file gets no extension).
    static let magic: [(name: String, bytes: [UInt8])] = [
        ("png", hex("89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52 00 00 00 10 00 00 00 10 08 06 00 00 00") + binaryJunk.prefix(64)),
        ("jpeg", hex("ff d8 ff e0 00 10") + ascii("JFIF") + [0] + binaryJunk.prefix(64)),
        ("gif", ascii("GIF89a") + hex("10 00 10 00 80 00 00") + binaryJunk.prefix(40)),
        ("pdf", ascii("%PDF-1.7\n%") + hex("e2 e3 cf d3") + ascii("\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")),
        ("gzip", hex("1f 8b 08 00 00 00 00 00 00 03") + binaryJunk.prefix(64)),
        ("bzip2", ascii("BZh91AY&SY") + binaryJunk.prefix(64)),
        ("xz", hex("fd 37 7a 58 5a 00 00 04 e6 d6 b4 46") + binaryJunk.prefix(64)),
        ("zstd", hex("28 b5 2f fd 04 58") + binaryJunk.prefix(64)),
        ("lz4", hex("04 22 4d 18 64 40 a7") + binaryJunk.prefix(64)),
        ("compress", hex("1f 9d 90") + binaryJunk.prefix(64)),
        ("sevenzip", ascii("7z") + hex("bc af 27 1c 00 04") + binaryJunk.prefix(64)),
        ("rar", ascii("Rar!") + hex("1a 07 01 00") + binaryJunk.prefix(64)),
        ("zip", zip(firstName: "notes.txt", content: "hello")),
        ("odt", zip(firstName: "mimetype", content: "application/vnd.oasis.opendocument.text")),
        ("ods", zip(firstName: "mimetype", content: "application/vnd.oasis.opendocument.spreadsheet")),
        ("epub", zip(firstName: "mimetype", content: "application/epub+zip")),
        ("jar", zip(firstName: "META-INF/MANIFEST.MF", content: "Manifest-Version: 1.0")),
        ("tar", tar),
        ("elf-exec", elf(type: 2)),
        ("elf-dyn", elf(type: 3)),
        ("elf-rel", elf(type: 1)),
        ("elf-core", elf(type: 4)),
        ("sh", ascii("#!/bin/sh\necho hello\n")),
        ("bash", ascii("#!/bin/bash\nset -e\necho hello\n")),
        ("env-python3", ascii("#!/usr/bin/env python3\nprint('hello')\n")),
        ("python3", ascii("#!/usr/bin/python3\nimport sys\n")),
        ("perl", ascii("#!/usr/bin/perl -w\nprint \"hi\\n\";\n")),
        ("ruby", ascii("#!/usr/bin/env ruby\nputs 'hi'\n")),
        ("python-noshebang", ascii("import os\nimport sys\n\ndef main():\n    pass\n")),
        ("xml", ascii("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root><child/></root>\n")),
        ("svg", ascii("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"1\"/>\n")),
        ("svg-bare", ascii("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n")),
        ("html", ascii("<!DOCTYPE html>\n<html><head><title>x</title></head><body></body></html>\n")),
        ("html-lower", ascii("<html>\n<body>hello</body>\n</html>\n")),
        ("xhtml", ascii("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body/></html>\n")),
        ("postscript", ascii("%!PS-Adobe-3.0\n%%Pages: 1\nshowpage\n")),
        ("eps", ascii("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 1 1\n")),
        ("rtf", ascii("{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} hello}\n")),
        ("ole2", padded(hex("d0 cf 11 e0 a1 b1 1a e1"), to: 1024)),
        ("java-class", hex("ca fe ba be 00 00 00 34 00 10") + binaryJunk.prefix(64)),
        ("wasm", hex("00 61 73 6d 01 00 00 00") + binaryJunk.prefix(32)),
        ("ogg-vorbis", ogg(hex("01") + ascii("vorbis"))),
        ("ogg-opus", ogg(ascii("OpusHead"))),
        ("ogg-theora", ogg(hex("80") + ascii("theora"))),
        ("flac", ascii("fLaC") + hex("00 00 00 22 10 00 10 00") + binaryJunk.prefix(64)),
        ("mp3-id3", ascii("ID3") + hex("04 00 00 00 00 00 00 ff fb 90 00") + binaryJunk.prefix(64)),
        ("wav", riff("WAVE", "fmt ")),
        ("avi", riff("AVI ", "LIST")),
        ("webp", riff("WEBP", "VP8 ")),
        ("mp4", hex("00 00 00 18") + ascii("ftypmp42") + hex("00 00 00 00") + ascii("mp42isom") + binaryJunk.prefix(64)),
        ("mkv", hex("1a 45 df a3 9f 42 86 81 01 42 f7 81 01 42 f2 81 04 42 f3 81 08 42 82 88") + ascii("matroska") + binaryJunk.prefix(32)),
        ("webm", hex("1a 45 df a3 9f 42 86 81 01 42 f7 81 01 42 f2 81 04 42 f3 81 08 42 82 84") + ascii("webm") + binaryJunk.prefix(32)),
        ("sqlite", ascii("SQLite format 3") + [0] + binaryJunk.prefix(84)),
        ("tiff-le", ascii("II*") + [0] + binaryJunk.prefix(64)),
        ("tiff-be", ascii("MM") + hex("00 2a") + binaryJunk.prefix(64)),
        ("bmp", ascii("BM") + hex("36 04 00 00 00 00 00 00 36 00 00 00 28 00 00 00") + binaryJunk.prefix(64)),
        ("ico", hex("00 00 01 00 01 00 10 10 00 00 01 00 20 00") + binaryJunk.prefix(64)),
        ("deb", ascii("!<arch>\ndebian-binary   1342943816  0     0     100644  4         `\n2.0\n")),
        ("ar", ascii("!<arch>\nfoo.o/          0           0     0     644     8         `\n") + binaryJunk.prefix(8)),
        ("rpm", hex("ed ab ee db 03 00 00 00 00 01") + binaryJunk.prefix(90)),
        ("cpio", ascii("070701000000010000") + binaryJunk.prefix(64)),
        ("lzma", hex("5d 00 00 80 00 ff ff ff ff ff ff ff ff 00") + binaryJunk.prefix(64)),
        ("ttf", hex("00 01 00 00 00 0c 00 80 00 03 00 40") + ascii("OS/2") + binaryJunk.prefix(64)),
        ("otf", ascii("OTTO") + hex("00 0c 00 80 00 03 00 40") + binaryJunk.prefix(64)),
        ("woff", ascii("wOFF") + hex("00 01 00 00") + binaryJunk.prefix(64)),
        ("woff2", ascii("wOF2") + hex("00 01 00 00") + binaryJunk.prefix(64)),
        ("pe-exe", padded(ascii("MZ") + hex("90 00 03 00"), to: 60) + hex("80 00 00 00") + padded([], to: 64) + ascii("PE") + [0, 0]),
        ("macho", hex("cf fa ed fe 07 00 00 01 03 00 00 00") + binaryJunk.prefix(64)),
        ("pgp-message", ascii("-----BEGIN PGP MESSAGE-----\n\nhQEMA\n-----END PGP MESSAGE-----\n")),
        ("pgp-signature", ascii("-----BEGIN PGP SIGNATURE-----\n\niQIz\n-----END PGP SIGNATURE-----\n")),
        ("pgp-keys", ascii("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQIN\n")),
        ("pem-certificate", ascii("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")),
        ("openssh-key", ascii("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n")),
        ("mbox", ascii("From someone@example.com Mon Jan  1 00:00:00 2024\nSubject: hi\n\nbody\n")),
        ("email", ascii("Received: from mx.example.com\nFrom: a@example.com\nSubject: hi\n\nbody\n")),
        ("diff-git", ascii("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")),
        ("diff-unified", ascii("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")),
        ("desktop-entry", ascii("[Desktop Entry]\nType=Application\nName=Sneaky\nExec=/bin/true\n")),
        ("c-source", ascii("#include <stdio.h>\nint main(void) { return 0; }\n")),
        ("php", ascii("<?php\necho 'hi';\n")),
        ("json", ascii("{\"a\": 1, \"b\": [true, false]}\n")),
        ("csv", ascii("a,b,c\n1,2,3\n")),
        ("makefile-content", ascii("all:\n\tcc -o x x.c\n")),
        ("utf8-bom", hex("ef bb bf") + ascii("hello\n")),
        ("utf16le-bom", hex("ff fe 68 00 69 00 0a 00")),
        ("utf16be-bom", hex("fe ff 00 68 00 69 00 0a")),
        ("iso9660-beyond-4k", padded([], to: 32769) + ascii("CD001") + [1] + zeros(200)),
        ("text-late-control", [UInt8](repeating: 0x78, count: 200) + [1] + ascii("\n")),
        ("text-early-control", ascii("ab") + [1] + ascii("cd\n")),
        ("text-vertical-tab", ascii("a") + [0x0b] + ascii("b\n")),
        ("text-backspace-formfeed", [8] + ascii("a") + [0x0c] + ascii("b\n")),
        ("text-delete", [8] + ascii("abc") + [0x7f]),
        ("text-high-bytes", hex("c3 a9 e2 82 ac f0 9f 98 80 0a ff fe")),
        ("one-nul", [0]),
        ("binary-junk", binaryJunk),
        ("plain-text", textLines),
        ("empty", []),
    ]

    /// Extensions with patterns of several types (Debian 12's database), and patterns GLib
    /// treats in particular ways.
    static let ambiguousExtensions = [
        "ogg", "oga", "opus", "ts", "m", "mo", "pm", "pot", "sub", "html", "htm", "py", "asc", "key", "iso", "c",
        "dot", "gpg", "json", "m3u", "mm", "mod", "mp2", "obj", "otf", "pcf", "pdb", "psf", "qif", "sdp", "service",
        "smd", "smi", "spx", "t", "3ds", "appimage", "djvu", "kexi", "mpl", "prc", "jpx", "doc", "xml", "svg", "txt",
    ]

    /// Contents tried under each ambiguous extension.
    static var conflictContents: [(name: String, bytes: [UInt8])] {
        let pick = ["plain-text", "binary-junk", "python3", "xml", "xhtml", "html", "ogg-vorbis", "ogg-opus", "png",
                    "elf-exec", "ole2", "desktop-entry"]
        return pick.compactMap { p in magic.first { $0.name == p } }
            + [("ts-packets", transportStream)]
    }

    /// Names that exercise the glob rules, with the content each gets.
    static var namedFiles: [(name: String, bytes: [UInt8])] {
        let png = magic.first { $0.name == "png" }!.bytes
        let gz = magic.first { $0.name == "gzip" }!.bytes
        return [
            ("FOO.PNG", png), ("photo.JPG", textLines), ("photo.txt", png), ("x.tar.GZ", gz), ("x.TAR.gz", gz),
            ("x.tar.gz", gz), ("Data.tar.bz2", textLines), ("Makefile", textLines), ("makefile", binaryJunk),
            ("MAKEFILE", textLines), ("GNUmakefile", textLines), ("Makefile.am", binaryJunk), ("core", binaryJunk),
            ("CORE", binaryJunk), ("Core", textLines), ("README", binaryJunk), ("README.md", binaryJunk),
            ("readme.txt", textLines), ("README.FIRST", textLines), (".bashrc", textLines), ("x.", textLines),
            ("a b.txt", textLines), ("ü.txt", textLines), ("x.ü", textLines), ("x.desktop", textLines),
            ("x.DESKTOP", textLines), ("x.c~", textLines), ("x.bak", binaryJunk), ("#x#", textLines),
            ("libfoo.so.6", binaryJunk), ("libbar.so.6", textLines), ("foo.1", textLines), ("foo.1.gz", gz),
            ("x.anim3", binaryJunk), ("123.vdr", binaryJunk), ("CMakeLists.txt", textLines), ("meson.build", textLines),
            ("pom.xml", textLines), ("x.PY", textLines), ("X.Py", binaryJunk), ("x.C", textLines), ("x.c", textLines),
            ("Makefile;1", binaryJunk), ("x.pdf.png", png), ("x.png.pdf", png), ("x.sxw", binaryJunk),
            ("changelog", binaryJunk), ("ChangeLog", binaryJunk), ("x.gs", textLines), ("x.GS", textLines),
            // Two wildcard patterns of equal weight: the spec takes the longer (x-scons), GLib the first listed.
            ("SConscript.1", textLines),
        ]
    }

    /// Writes the whole generated set into `dir`; returns the paths of its regular files.
    /// `copies` are installed files whose first 64 KiB are copied under extension-less names.
    static func write(into dir: String, copies: [String]) -> [String] {
        var paths: [String] = []
        func put(_ name: String, _ bytes: [UInt8]) {
            let path = dir + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            paths.append(path)
        }
        for (name, bytes) in magic { put("magic-" + name, bytes) }
        for ext in ambiguousExtensions {
            for (content, bytes) in conflictContents { put("\(content).\(ext)", bytes) }
        }
        for (name, bytes) in namedFiles { put(name, bytes) }
        for (i, source) in copies.enumerated() {
            let fd = open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &buffer, buffer.count)
            close(fd)
            if n > 0 { put("copy-\(i)", Array(buffer[0..<n])) }
        }
        return paths
    }

    /// A directory, a FIFO, a socket, a dangling symlink, a symlink to a PNG without an
    /// extension, and `/dev/null`: the files no content is read from.
    static func writeSpecialFiles(into dir: String) -> [String] {
        mkdir(dir + "/a-directory", 0o755)
        mkfifo(dir + "/a-fifo", 0o644)
        symlink(dir + "/does-not-exist", dir + "/dangling-link")
        symlink(dir + "/magic-png", dir + "/link-to-png")
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((dir + "/a-socket").utf8CString)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, c) in path.prefix(raw.count - 1).enumerated() { raw[i] = UInt8(bitPattern: c) }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(s)
        return ["a-directory", "a-fifo", "dangling-link", "link-to-png", "a-socket"].map { dir + "/" + $0 } + ["/dev/null"]
    }
}

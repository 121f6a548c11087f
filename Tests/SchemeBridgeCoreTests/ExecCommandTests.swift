import Testing
@testable import SchemeBridgeCore

/// Parses an Exec value as it is written in a desktop file (key-file escapes included).
private func exec(_ fileValue: String) throws(ExecError) -> ExecCommand {
    try ExecCommand(KeyFileValue.unescape(fileValue))
}

private func argv(_ fileValue: String, _ urls: [String] = ["todo://x"], context: ExecContext = ExecContext()) throws -> [[String]] {
    let command = try exec(fileValue)
    return command.argumentVectors(for: try urls.map { try SchemeURL($0) }, context: context)
}

@Suite struct ExecCommandTests {
    @Test func specQuotingVectors() throws {
        // Quoted path with spaces.
        #expect(try argv(#""/opt/My App/bin/app" %u"#) == [["/opt/My App/bin/app", "todo://x"]])
        // In the file, \\\\ is one backslash after both unescapings; \\$ is a literal $.
        #expect(try argv(#"app "a\\\\b" %u"#) == [["app", #"a\b"#, "todo://x"]])
        #expect(try argv(#"app "\\$HOME" %u"#) == [["app", "$HOME", "todo://x"]])
        #expect(try argv(#"app "say \"hi\" \`x\`" %u"#) == [["app", #"say "hi" `x`"#, "todo://x"]])
        // \\ inside quotes (key-file \\ → \, then quote rule \\ ... ) and other backslashes kept.
        #expect(try argv(#"app "a\\\\\\\\b""#) == [["app", #"a\\b"#, "todo://x"]])
        #expect(try argv(#"app "a\nb""#) == [["app", "a\nb", "todo://x"]])
        // Quotes may start mid-argument.
        #expect(try argv(#"app --name="a b" %u"#) == [["app", "--name=a b", "todo://x"]])
        // Empty quoted argument survives; runs of spaces collapse.
        #expect(try argv(#"app   ""   %u"#) == [["app", "", "todo://x"]])
        // \s from the key file is a space that separates arguments (it is unquoted).
        #expect(try argv(#"app\sarg %u"#) == [["app", "arg", "todo://x"]])
    }

    @Test func fieldCodes() throws {
        let ctx = ExecContext(icon: "todo-icon", name: "Todo Ünï", desktopFilePath: "/usr/share/applications/todo.desktop")
        #expect(try argv("app %% 100%% %u", context: ctx) == [["app", "%", "100%", "todo://x"]])
        #expect(try argv("app %i %u", context: ctx) == [["app", "--icon", "todo-icon", "todo://x"]])
        #expect(try argv("app %i %u", context: ExecContext()) == [["app", "todo://x"]])
        #expect(try argv("app %c %u", context: ctx) == [["app", "Todo Ünï", "todo://x"]])
        #expect(try argv("app --title=%c %u", context: ctx) == [["app", "--title=Todo Ünï", "todo://x"]])
        #expect(try argv("app %k %u", context: ctx) == [["app", "/usr/share/applications/todo.desktop", "todo://x"]])
        #expect(try argv("app %d %D %n %N %v %m %u", context: ctx) == [["app", "todo://x"]])
        #expect(try argv("app a%mb %u", context: ctx) == [["app", "ab", "todo://x"]])
        #expect(try argv("app --url=%u") == [["app", "--url=todo://x"]])
        #expect(try argv(#"app "%u""#) == [["app", "todo://x"]])
        #expect(try argv("app") == [["app", "todo://x"]])
    }

    @Test func unknownFieldCodesAreInvalid() {
        #expect(throws: ExecError.unknownFieldCode("x")) { try exec("app %x") }
        #expect(throws: ExecError.unknownFieldCode("")) { try exec("app 100%") }
        #expect(throws: ExecError.unknownFieldCode("é")) { try exec("app %é") }
        #expect(throws: ExecError.multipleURLFieldCodes) { try exec("app %u %f") }
        #expect(throws: ExecError.multipleURLFieldCodes) { try exec("app %U --x=%u") }
    }

    @Test func malformedCommandLines() throws {
        #expect(throws: ExecError.empty) { try exec("") }
        #expect(throws: ExecError.empty) { try exec("   ") }
        #expect(throws: ExecError.unterminatedQuote) { try exec(#"app "abc"#) }
        #expect(throws: ExecError.trailingBackslash) { try ExecCommand("app \\") }
        #expect(throws: ExecError.unquotedReservedCharacter("'")) { try exec("sh -c 'echo %u'") }
        #expect(throws: ExecError.invalidProgram("A=B")) { try exec("A=B app %u") }
        #expect(throws: ExecError.invalidProgram("%u")) { try exec("%u") }
        // Other reserved characters are inert (never a shell).
        #expect(try argv("app > out ; rm -rf ~ | x & %u") == [["app", ">", "out", ";", "rm", "-rf", "~", "|", "x", "&", "todo://x"]])
    }

    @Test func severalURLs() throws {
        let urls = ["todo://a", "todo://b c"]
        #expect(try argv("app %u", urls) == [["app", "todo://a"], ["app", "todo://b c"]])
        #expect(try argv("app %U --end", urls) == [["app", "todo://a", "todo://b c", "--end"]])
        #expect(try argv("app --u=%U", urls) == [["app", "--u=todo://a"], ["app", "--u=todo://b c"]])
        #expect(try argv("app", urls) == [["app", "todo://a"], ["app", "todo://b c"]])
        #expect(try argv("app %u", []) == [["app"]])
        #expect(try argv("app --x=%u", []) == [["app", "--x="]])
    }

    @Test func fileFieldCodes() throws {
        #expect(try argv("app %f", ["file:///tmp/a%20b"]) == [["app", "/tmp/a b"]])
        #expect(try argv("app %F", ["file:///a", "todo://b"]) == [["app", "/a", "todo://b"]])
        // A non-file URL reaches %f unchanged (GLib would drop it).
        #expect(try argv("app %f", ["todo://x y"]) == [["app", "todo://x y"]])
        #expect(try argv("app %u", ["file:///tmp/a%20b"]) == [["app", "file:///tmp/a%20b"]])
    }

    /// A file name that is not UTF-8 (`photo-\xE9t\xE9.png`, Latin-1) reaches `%f`/`%F` as its
    /// bytes, in place or embedded, and into the launch command as run.
    @Test func fileFieldCodesGiveAPathsBytes() throws {
        let url = try SchemeURL("file:///tmp/photo-%E9t%E9.png")
        let path: [UInt8] = Array("/tmp/photo-".utf8) + [0xE9] + Array("t".utf8) + [0xE9] + Array(".png".utf8)
        #expect(url.localFilePathBytes == path && url.localFilePath == nil)
        #expect(try exec("app %f").argumentByteVectors(for: [url]) == [[Array("app".utf8), path]])
        #expect(try exec("app --file=%F").argumentByteVectors(for: [url]) == [[Array("app".utf8), Array("--file=".utf8) + path]])
        let command = LaunchCommand(arguments: [Array("app".utf8), path])
        #expect(command.prefixed(by: ["xterm", "-e"]).arguments == [Array("xterm".utf8), Array("-e".utf8), Array("app".utf8), path])
        #expect(command.argv == ["app", "/tmp/photo-\u{FFFD}t\u{FFFD}.png"], "as text, for messages")
    }

    /// Hostile URLs reach the handler byte for byte, as exactly one argument.
    @Test(arguments: [
        "todo://a b c",
        "todo://\"quoted\" 'single'",
        "todo://$(touch /tmp/pwned)",
        "todo://`id`",
        "todo://a;rm -rf ~;b",
        "todo://x%0Ay",
        "todo://%u %U %f %%",
        "todo:-rf",
        "todo:--help",
        "todo://\\\\\\\"",
        "todo://ü ✓ \u{200B}",
        "todo://a&b|c>d<e*f?g#h(i)j~k",
    ])
    func hostileURLIsOneArgument(url: String) throws {
        for line in ["app %u", "app --url=%u", "app %U", "app", "\"/opt/A B/app\" --flag %f", "app %F"] {
            let vectors = try argv(line, [url])
            #expect(vectors.count == 1)
            let args = vectors[0]
            let hits = args.filter { $0.contains(url) }
            #expect(hits.count == 1, "\(line) → \(args)")
            #expect(args.last == url || args.last == "--url=" + url)
            #expect(args.count == (line.hasPrefix("\"") ? 3 : 2))
        }
    }

    @Test func hostileURLWithNewlineIsRefusedBeforeExec() {
        #expect(throws: SchemeURLError.controlCharacter(scalar: 10, offset: 8)) { try SchemeURL("todo://a\nrm -rf /") }
    }
}

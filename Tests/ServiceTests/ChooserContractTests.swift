import Testing
import DBus
import SchemeBridgeContract

/// The bus chooser is told the question the dialogs read (``ChooserContract/chooseArguments(_:)``):
/// the same caller, kind, candidates and share, in `Choose`'s argument lists; its answer is
/// `(s, b)` or nothing.
@Suite struct ChooserContractTests {
    @Test func chooseIsToldTheDialogsQuestion() throws {
        let request = DialogMessageTests.share
        let arguments = ChooserContract.chooseArguments(request)
        #expect(arguments.map(\.type) == [.string, .array(.structure([.string, .string, .string])), .dictionary(key: .string, value: .variant)])
        #expect(arguments[0] == .string("x-schemebridge/share"))
        #expect(arguments[1].arrayElements == [.structure([.string("a.desktop:share"), .string("Sketch"), .string("sketch")]),
                                               .structure([.string("kdeconnect:1"), .string("Pixel"), .string("")])])
        let context = try #require(arguments[2].stringDictionary)
        typealias Key = ChooserContract.ContextKey
        #expect(context[Key.caller]?.unwrapped == .string("org.example.Photos") && context[Key.kind]?.unwrapped == .string("share"))
        #expect(context[Key.canRemember]?.unwrapped == .boolean(true) && context[Key.parentWindow]?.unwrapped == .string("x11:0x2a"))
        #expect(context[Key.activationToken]?.unwrapped == .string("tok") && context[Key.title] == nil)
        #expect(context[Key.shareCount]?.unwrapped == .uint32(2) && context[Key.targetKinds]?.unwrapped == .strings(["app", "device"]))
        #expect(context[Key.shareTypes]?.unwrapped == .strings(["image/png", "text/x-uri"]))
        var scheme = request
        (scheme.kind, scheme.share) = (.scheme, nil)
        let plain = try #require(ChooserContract.chooseArguments(scheme)[2].stringDictionary)
        #expect(plain[Key.shareCount] == nil && plain[Key.targetKinds] == nil, "share members only for a share")
    }

    @Test func itsAnswerIsAnIdAndAlways() {
        #expect(ChooserContract.answer([.string("b.desktop"), .boolean(true)]).map { [$0.id, "\($0.always)"] } == ["b.desktop", "true"])
        #expect(ChooserContract.answer([.string("b.desktop")]) == nil)
        #expect(ChooserContract.answer([.boolean(true), .string("b.desktop")]) == nil)
    }
}

import Foundation
import Glibc
import Testing
import DBus
import SchemeBridgeContract

/// Issue 36, item 4: every method's argument lists are spelled once, in the contract
/// (``ContractSignature``): the service's dispatch and introspection are built on them, and each
/// call a client makes (``ContractCall``) is made from them — its arguments must have their types.
/// A signal's declaration and its encoder are one type (``ContractSignal``).
@Suite struct ContractSignatureTests {
    static let path: ObjectPath = "/io/github/schemebridge/SchemeBridge1/pasteboard/p1"

    /// Every call of the contract a client can make, with sample arguments.
    static func calls() -> [(interface: InterfaceName, member: MemberName, arguments: [DBusValue])] {
        let fd = UnixFD(owning: dup(0))
        func c<R>(_ call: ContractCall<R>) -> (InterfaceName, MemberName, [DBusValue]) { (call.interface, call.member, call.arguments) }
        return [
            c(.canOpenURL("a:b")), c(.openURL("a:b")), c(.defaultHandler("a")), c(.launchImageForURL("a:b")), c(.handlersForScheme("a")),
            c(.openURL("a:b", options: OpenOptions(activationToken: "t"))), c(.openURLWithReply("a:b", options: OpenOptions())),
            c(.reply(token: "t", code: .success, results: [:])), c(.setDefaultHandler("a", "b.desktop")),
            c(.openFile(fd, options: OpenOptions())), c(.contentTypeForFile(fd, name: "n")), c(.defaultHandlerForType("text/plain")),
            c(.handlersForType("text/plain")), c(.setDefaultHandlerForType("text/plain", "b.desktop")), c(.defaultHandlerOrigin("a")),
            c(.displayNames(["a.desktop"])), c(.skippedHandlersForScheme("a")),
            c(.choices), c(.routes), c(.forgetChoice(caller: "c", "a")), c(.enableIntegration(["a"])), c(.disableIntegration([])), c(.integrationStatus),
            c(.pickDocument(types: ["text/plain"], options: PickOptions())),
            c(.share([[ShareContract.ItemKey.url: .string("a:b")]], options: ShareOptions(target: "builtin:copy"))), c(.shareTargets(types: ["text/plain"])),
            c(.createPasteboard("n", options: PasteboardOptions())), c(.findPasteboard("n")),
            c(.setItems([["text/plain": .bytes([1])]], at: path)), c(.setItems([[String: PasteboardData]](), at: path)), c(.pasteboardTypes(at: path)),
            c(.read(item: 0, type: "text/plain", at: path)), c(.readBytes(item: 0, type: "text/plain", at: path)),
            c(.grant(["org.example.App"], at: path)), c(.revoke([], at: path)), c(.deletePasteboard(at: path)),
        ]
    }

    @Test func everyCallIsMadeFromItsSignature() {
        for call in Self.calls() {
            let signature = ContractSignature.all.first { $0.interface == call.interface && $0.name == call.member }
            #expect(signature != nil, "\(call.interface.rawValue).\(call.member.rawValue) has no signature in the contract")
            #expect(signature?.accepts(call.arguments) == true,
                    "\(call.member.rawValue): the call sends \(call.arguments.map(\.type.signature).joined()), the contract says \(signature?.inputs.map(\.type.signature).joined() ?? "nothing")")
        }
    }

    @Test func aSignatureRefusesOtherTypes() {
        #expect(!ContractSignature.canOpenURL.accepts([.uint32(1)]))
        #expect(!ContractSignature.canOpenURL.accepts([]))
        #expect(ContractSignature.setDefaultHandler.accepts([.string("a"), .string("b")]))
    }

    @Test func eachSignalIsDeclaredAsItIsSent() {
        let signals: [(declared: [Argument], sent: [DBusValue])] = [
            (Response.declaredArguments, Response(code: 0, results: [:]).arguments),
            (URLHandled.declaredArguments, URLHandled(url: "a:b", scheme: "a", handler: "h.desktop", details: [:]).arguments),
            (URLFailed.declaredArguments, URLFailed(url: "a:b", errorName: "e", message: "m").arguments),
            (HandlersChanged.declaredArguments, HandlersChanged(schemes: ["a"]).arguments),
            (PasteboardChanged.declaredArguments, PasteboardChanged(changeCount: 1).arguments),
            (PasteboardDeleted.declaredArguments, PasteboardDeleted().arguments),
        ]
        for (declared, sent) in signals {
            #expect(declared.map(\.type) == sent.map(\.type), "\(declared.map(\.name)): declared \(declared.map(\.type.signature)), sent \(sent.map(\.type.signature))")
        }
    }

    /// The names a method is called by are unique per interface (the service would refuse a
    /// second declaration), and every main-interface name of ``ContractMethod`` has a signature.
    @Test func signaturesAreUniqueAndComplete() {
        let keys = ContractSignature.all.map { $0.interface.rawValue + "." + $0.name.rawValue }
        #expect(Set(keys).count == keys.count)
        for name in [ContractMethod.canOpenURL, ContractMethod.openURLWithReply, ContractMethod.reply, ContractMethod.openFile, ContractMethod.choices,
                     PickContract.provideDocuments, ShareContract.shareTargets] {
            #expect(keys.contains { $0.hasSuffix("." + name.rawValue) }, "\(name.rawValue)")
        }
    }
}

import DBus

/// Verified app links (version 4 additions, issue 41; docs/CONTRACT.md "App links"): methods on
/// the main interface and the keys of their answers.
public enum AppLinkContract {
    /// `ResolveLink(s url) → a{sv}`: which app holds the link and how; opens nothing.
    public static let resolveLink: MemberName = "ResolveLink"
    /// `AppLinks() → aa{sv}`: every (app, host) claimed, with its state.
    public static let appLinks: MemberName = "AppLinks"
    /// `VerifyLinkHost(s host) → a{sv}`: fetch the host's file now (rate-limited); the evidence.
    public static let verifyLinkHost: MemberName = "VerifyLinkHost"
    /// `SetLinkApp(s host, s desktop_id)`: the user's choice for the host (`""`: forget it).
    public static let setLinkApp: MemberName = "SetLinkApp"
    /// The longest host a method takes, in bytes (before IDNA; a normalised host is at most 253).
    public static let maximumHostBytes = 1024

    /// The states of an (app, host).
    public enum State: String, Sendable, CaseIterable {
        case verified, selected, none
    }

    /// Keys of `ResolveLink`'s answer and of each `AppLinks` row.
    public enum Key {
        /// `app` (s): the desktop id that holds the link, `""` when none.
        public static let app = "app"
        /// `state` (s): `verified`, `selected` or `none`.
        public static let state = "state"
        /// `host` (s): the link's host, normalised (IDNA ASCII, lower case, no trailing dot).
        public static let host = "host"
        /// `evidence` (a{sv}): what the host's file said: ``EvidenceKey``; empty when never fetched.
        public static let evidence = "evidence"
        /// `claimants` (as): every app whose entry claims the link (host and path).
        public static let claimants = "claimants"
        /// `reason` (s): in words, why this app or none.
        public static let reason = "reason"
        /// `AppLinks` rows: `pattern` (s), the declared host pattern (`*.example.org`).
        public static let pattern = "pattern"
        /// `AppLinks` rows: `paths` (as), the declared path rules.
        public static let paths = "paths"
        /// `AppLinks` rows: `trusted` (b), the entry is one the user's programs cannot write.
        public static let trusted = "trusted"
    }

    /// Keys of `evidence` (and of `VerifyLinkHost`'s answer).
    public enum EvidenceKey {
        /// `source` (s): the URL fetched.
        public static let source = "source"
        /// `address` (s): `ADDRESS:PORT` connected to.
        public static let address = "address"
        /// `checked` (x): when, in seconds since the epoch.
        public static let checked = "checked"
        /// `expires` (x): until when the answer counts.
        public static let expires = "expires"
        /// `status` (u): the HTTP status, 0 without a response.
        public static let status = "status"
        /// `apps` (as): the app ids the file endorses.
        public static let apps = "apps"
        /// `failure` (s): why it endorses none (absent when it was read).
        public static let failure = "failure"
        /// `endorsed-until` (x): after a transient failure, until when the earlier answer's `apps`
        /// still count (its max-age); absent otherwise.
        public static let endorsedUntil = "endorsed-until"
    }
}

/// One app link as the service answers it (`ResolveLink`, or an `AppLinks` row), typed.
public struct AppLinkAnswer: Sendable {
    /// Every key as sent (values unwrapped from their variants).
    public let values: [String: DBusValue]

    public init(_ values: [String: DBusValue]) { self.values = values.mapValues(\.unwrapped) }

    public func string(_ key: String) -> String { values[key]?.string ?? "" }
    public func strings(_ key: String) -> [String] { values[key]?.arrayElements?.compactMap(\.string) ?? [] }
    public func bool(_ key: String) -> Bool { values[key]?.bool ?? false }
    /// `evidence` (or a whole `VerifyLinkHost` answer when read from its top level).
    public var evidence: AppLinkAnswer { AppLinkAnswer(values[AppLinkContract.Key.evidence]?.stringDictionary ?? [:]) }
    public func integer(_ key: String) -> Int64? { values[key]?.integer }
}

extension ContractCall where Result == AppLinkAnswer {
    /// `ResolveLink(s) → a{sv}`.
    public static func resolveLink(_ url: String) -> Self {
        .single(ContractSignature.resolveLink, [.string(url)]) { v in v.stringDictionary.map(AppLinkAnswer.init) }
    }
    /// `VerifyLinkHost(s) → a{sv}`.
    public static func verifyLinkHost(_ host: String) -> Self {
        .single(ContractSignature.verifyLinkHost, [.string(host)]) { v in v.stringDictionary.map(AppLinkAnswer.init) }
    }
}

extension ContractCall where Result == [AppLinkAnswer] {
    /// `AppLinks() → aa{sv}`.
    public static var appLinks: Self {
        .single(ContractSignature.appLinks, []) { v in v.arrayElements?.compactMap { $0.stringDictionary.map(AppLinkAnswer.init) } }
    }
}

extension ContractCall where Result == Void {
    /// `SetLinkApp(s host, s desktop_id)`; `""` forgets the choice.
    public static func setLinkApp(_ host: String, _ desktopID: String) -> Self {
        ContractCall(ContractSignature.setLinkApp, [.string(host), .string(desktopID)]) { _ in }
    }
}

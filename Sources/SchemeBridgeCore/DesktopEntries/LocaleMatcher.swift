/// Chooses among localized key-file values (`Name[de_DE]`) per the Desktop Entry spec 1.5
/// ("Localized values for keys").
///
/// The locale comes from the given environment: the first non-empty of `LC_ALL`, `LC_MESSAGES`,
/// `LANG` (POSIX precedence). `C` and `POSIX` mean "no translation". `LANGUAGE` is not read
/// (it is a GNU gettext extension that the spec does not mention).
///
/// For a locale `lang_COUNTRY.ENCODING@MODIFIER` the encoding is ignored and keys are tried in the
/// spec's order: `lang_COUNTRY@MODIFIER`, `lang_COUNTRY`, `lang@MODIFIER`, `lang`, then the
/// unlocalized key.
public struct LocaleMatcher: Sendable, Equatable {
    /// Locale suffixes to try, most specific first.
    public let candidates: [String]

    /// The locale of `environment`.
    public init(environment: [String: String]) {
        var value: String?
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = environment[name], !v.isEmpty {
                value = v
                break
            }
        }
        self.init(locale: value)
    }

    /// The matcher for one locale string such as `de_DE.UTF-8@euro`; nil, `C` or `POSIX` give
    /// no candidates.
    public init(locale: String?) {
        guard let locale, !locale.isEmpty, locale != "C", locale != "POSIX",
              !locale.hasPrefix("C."), let parts = LocaleMatcher.split(locale)
        else {
            candidates = []
            return
        }
        var result: [String] = []
        if let country = parts.country, let modifier = parts.modifier {
            result.append("\(parts.lang)_\(country)@\(modifier)")
        }
        if let country = parts.country {
            result.append("\(parts.lang)_\(country)")
        }
        if let modifier = parts.modifier {
            result.append("\(parts.lang)@\(modifier)")
        }
        result.append(parts.lang)
        candidates = result
    }

    /// Splits `lang_COUNTRY.ENCODING@MODIFIER`.
    static func split(_ locale: String) -> (lang: String, country: String?, modifier: String?)? {
        var rest = Substring(locale)
        var modifier: String?
        if let at = rest.firstIndex(of: "@") {
            modifier = String(rest[rest.index(after: at)...])
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") {
            rest = rest[..<dot]
        }
        var country: String?
        if let underscore = rest.firstIndex(of: "_") {
            country = String(rest[rest.index(after: underscore)...])
            rest = rest[..<underscore]
        }
        guard !rest.isEmpty else { return nil }
        if modifier?.isEmpty == true { modifier = nil }
        if country?.isEmpty == true { country = nil }
        return (String(rest), country, modifier)
    }

    /// Normalizes a locale written in a key (`Name[sr_RS.UTF-8@latin]`): drops the encoding.
    static func normalizeKeyLocale(_ locale: String) -> String {
        guard locale.contains(".") else { return locale }
        guard let parts = split(locale) else { return locale }
        var s = parts.lang
        if let c = parts.country { s += "_" + c }
        if let m = parts.modifier { s += "@" + m }
        return s
    }
}

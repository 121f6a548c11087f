/// A word that is not a subcommand, in the subcommand's place: what the user probably meant.
enum SubcommandSuggestion {
    /// The message for `arguments` (with the program name) when its first argument is neither an
    /// option nor one of `known`; nil when it is fine.
    static func message(for arguments: [String], known: [String]) -> String? {
        guard arguments.count >= 2 else { return nil }
        let word = arguments[1]
        guard !word.hasPrefix("-"), !known.contains(word), word != "help" else { return nil }
        if OpenDocument.hasScheme(word) || Terminal.exists(word) {
            return "'\(Open.shown(word))' is not a subcommand; to open it: schemebridge open '\(Open.shown(word))'"
        }
        let close = known.map { ($0, distance(word.lowercased(), $0)) }.filter { $0.1 <= max(1, $0.0.count / 3) || $0.0.hasPrefix(word.lowercased()) }
            .min { $0.1 < $1.1 }
        if let close {
            return "'\(word)' is not a subcommand; did you mean '\(close.0)'? (schemebridge --help lists them)"
        }
        return "'\(word)' is not a subcommand; they are: \(known.joined(separator: ", "))"
    }

    /// The edit distance (insertions, deletions, substitutions, and swaps of neighbours) of `a` and `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}

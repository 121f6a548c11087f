extension String {
    /// `self` without leading and trailing characters of `set` (`"\"'"`, `" \t"`): the core's one
    /// trim, without Foundation.
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

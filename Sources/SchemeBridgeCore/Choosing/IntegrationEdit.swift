/// The line edits of `schemebridge integrate` in a `mimeapps.list` document, and their exact
/// undoing. A scheme is routed through SchemeBridge by its `[Default Applications]` line only:
/// an existing line gets our entry put first (`x-scheme-handler/s=ours;theirs;`), a missing one
/// is added. GLib, `xdg-mime` and the portal then hand such links to us; our own resolution
/// skips our entry (it lists no scheme, so it is not associated), and finds the default that
/// was there — the rest of the line, or the lists below — as before.
enum IntegrationEdit {
    static let group = MimeAppsList.defaultGroup

    private static func keyMatches(_ scheme: String) -> (String) -> Bool {
        { k in !k.contains("[") && Scheme.fromMimeType(k) == scheme }
    }

    /// Makes `ownID` the default of `scheme` in `document` and records the edit in `state`;
    /// false when the line already names `ownID` first (someone else routed it; not ours to undo).
    static func route(_ scheme: String, to ownID: String, in document: inout KeyFileDocument, state: inout IntegrationState) -> Bool {
        let matches = keyMatches(scheme)
        if let i = document.lineIndices(inGroup: group, where: matches).last, let kv = document.keyValue(at: i) {
            let ids = KeyFileValue.splitList(kv.value)
            if ids.first == ownID { return false }
            let old = document.lines[i]
            var bytes = Array("\(kv.key)=\(KeyFileValue.joinList([ownID] + ids))".utf8)
            if old.bytes.last == 0x0D { bytes.append(0x0D) }
            var lines = document.lines
            lines[i].bytes = bytes
            document = rebuilt(lines)
            state.edits[scheme] = IntegrationState.Edit(line: bytes, original: old.bytes)
            return true
        }
        let hadGroup = !document.groupRanges(group).isEmpty
        let endedWithoutNewline = document.lines.last.map { !$0.hasNewline } ?? false
        let count = document.lines.count
        document.setValue(ownID, forKey: "x-scheme-handler/\(scheme)", inGroup: group)
        if endedWithoutNewline && document.lines.last?.hasNewline == true { state.addedNewline = true }
        if !hadGroup {
            state.createdGroup = true
            // Header and line, and a blank line before them when one was needed.
            state.addedBlankLine = document.lines.count - count == 3
        }
        let added = document.lineIndices(inGroup: group, where: matches).last.map { document.lines[$0].bytes } ?? []
        state.edits[scheme] = IntegrationState.Edit(line: added, original: nil)
        return true
    }

    /// The index of the line `edit` wrote for `scheme`, if it is still there as written.
    static func lineIndex(_ scheme: String, _ edit: IntegrationState.Edit, in document: KeyFileDocument) -> Int? {
        document.lineIndices(inGroup: group, where: keyMatches(scheme)).last { document.lines[$0].bytes == edit.line }
    }

    /// The desktop ids of `scheme`'s `[Default Applications]` line (the last one), in order.
    static func defaults(_ scheme: String, in document: KeyFileDocument) -> [String] {
        guard let i = document.lineIndices(inGroup: group, where: keyMatches(scheme)).last, let kv = document.keyValue(at: i) else { return [] }
        return KeyFileValue.splitList(kv.value)
    }

    /// Undoes `edit` of `scheme`: the line we wrote goes back to the one it replaced, or away;
    /// false when no line is the one we wrote any more (someone changed it: left alone).
    static func unroute(_ scheme: String, _ edit: IntegrationState.Edit, in document: inout KeyFileDocument) -> Bool {
        guard let i = lineIndex(scheme, edit, in: document) else { return false }
        var lines = document.lines
        if let original = edit.original {
            lines[i].bytes = original
        } else {
            lines.remove(at: i)
        }
        document = rebuilt(lines)
        return true
    }

    /// Once no edit is left: takes out the group, blank line and line feed we added, when
    /// nothing else was put there meanwhile; then forgets about them.
    static func tidy(_ document: inout KeyFileDocument, state: inout IntegrationState) {
        guard state.edits.isEmpty else { return }
        var lines = document.lines
        if state.createdGroup, let range = document.groupRanges(group).last, range.upperBound == lines.count,
           range.dropFirst().allSatisfy({ lines[$0].bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }) {
            lines.removeSubrange(range)
            if state.addedBlankLine, let last = lines.last, last.bytes.allSatisfy({ $0 == 0x0D }) { lines.removeLast() }
        }
        if state.addedNewline, let last = lines.indices.last, lines[last].hasNewline { lines[last].hasNewline = false }
        document = rebuilt(lines)
        state.createdGroup = false
        state.addedBlankLine = false
        state.addedNewline = false
    }

    /// A document of `lines`.
    private static func rebuilt(_ lines: [KeyFileDocument.Line]) -> KeyFileDocument {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.bytes
            if line.hasNewline { bytes.append(0x0A) }
        }
        return KeyFileDocument(bytes: bytes)
    }
}

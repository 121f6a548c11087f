/// The data arguments of `schemebridge pasteboard write NAME …`: `TYPE [FILE|-]` pairs, with a
/// lone `+` between items.
///
///     write NAME text/plain notes.txt                          one item, one type
///     write NAME text/plain < notes.txt                        FILE omitted (or -): standard input
///     write NAME text/plain a.txt text/html a.html + image/png b.png
///                                                              two items, the first with two types
///
/// A FILE is taken as written (a file named `+` is `./+`); only the last TYPE of the list may go
/// without one, and standard input is read once at most.
struct PasteboardItemList: Equatable {
    /// Where a type's data comes from.
    enum Source: Equatable {
        case file(String)
        case standardInput
    }

    /// One type of an item and its data.
    struct Entry: Equatable {
        let type: String
        let source: Source
    }

    /// The items, in order; each holds its types in the order given.
    let items: [[Entry]]

    /// The separator between items.
    static let separator = "+"
    /// The most values one `write` sends: each goes as a descriptor, and `dbus-daemon` carries 16
    /// descriptors a message (`max_message_unix_fds`; it disconnects a client that sends more).
    static let maximumValues = 16

    /// Parses the arguments; the error says what is wrong, for a usage error.
    init(_ arguments: [String]) throws(ItemListError) {
        guard !arguments.isEmpty else { throw ItemListError("give a TYPE (and a FILE, or - for standard input)") }
        var items: [[Entry]] = [[]]
        var stdinUsed = false
        var i = 0
        while i < arguments.count {
            let type = arguments[i]
            if type == Self.separator {
                guard !items[items.count - 1].isEmpty else { throw ItemListError("'+' separates items: an item needs a TYPE and a FILE") }
                items.append([])
                i += 1
                continue
            }
            guard !type.isEmpty, !type.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw ItemListError("'\(type)' is not a type (e.g. text/plain, image/png)")
            }
            guard !items[items.count - 1].contains(where: { $0.type == type }) else {
                throw ItemListError("type '\(type)' is given twice for item \(items.count - 1); use + to start another item")
            }
            let source: Source
            if i + 1 < arguments.count {
                let file = arguments[i + 1]
                if file == Self.separator { throw ItemListError("type '\(type)' has no FILE before '+'") }
                source = file == "-" ? .standardInput : .file(file)
                i += 2
            } else {
                source = .standardInput
                i += 1
            }
            if source == .standardInput {
                if stdinUsed { throw ItemListError("standard input can be read once only ('-', or a TYPE without FILE at the end)") }
                stdinUsed = true
            }
            items[items.count - 1].append(Entry(type: type, source: source))
        }
        guard !items[items.count - 1].isEmpty else { throw ItemListError("nothing after the last '+'") }
        let values = items.reduce(0) { $0 + $1.count }
        guard values <= Self.maximumValues else {
            throw ItemListError("\(values) TYPE FILE pairs: one write sends at most \(Self.maximumValues) (the session bus carries \(Self.maximumValues) file descriptors a message)")
        }
        self.items = items
    }
}

/// A malformed `write` argument list.
struct ItemListError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

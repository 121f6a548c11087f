extension RegistryIndexCodec {
    /// An entry's share actions as ``encodeRecord`` writes them, checked to be what the parser
    /// could have made (``ShareAction/parse(_:entryGroup:id:path:locale:dbusActivatable:warnings:)``).
    static func decodeShareActions(_ r: inout IndexByteReader) throws(IndexRejection) -> [ShareAction] {
        let count = try r.count(minimumSize: 22)
        guard count <= ShareAction.maximumActions else { throw IndexRejection("more share actions than an entry may declare") }
        var actions: [ShareAction] = []
        for _ in 0..<count {
            let action = try r.string()
            let name = try r.string()
            let icon = try r.optionalString()
            let exec = try r.optionalString()
            let maxItems = Int(try r.u32())
            let typeCount = try r.count(minimumSize: 5)
            guard ShareAction.isValidActionName(action), !name.isEmpty, ShareAction.shown(name) == name,
                  icon == nil || ShareAction.icon(icon) == icon, maxItems <= 1_000_000,
                  typeCount > 0, typeCount <= ShareAction.maximumTypes else { throw IndexRejection("a corrupt share action") }
            if let exec { guard (try? ExecCommand(exec)) != nil else { throw IndexRejection("a share action with an invalid Exec") } }
            var types: [String] = []
            for _ in 0..<typeCount {
                let t = try r.string()
                guard SharePattern.normalized(t) == t else { throw IndexRejection("a share action with an invalid type") }
                types.append(t)
            }
            actions.append(ShareAction(action: action, name: name, icon: icon, exec: exec, types: types, maxItems: maxItems == 0 ? nil : maxItems))
        }
        return actions
    }
}

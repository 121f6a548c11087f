import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Thousands of generated strings to every method through python3-dbus: every reply is a
/// value or a documented error, the service stays up, its memory stays bounded.
@Suite struct HostileInputTests {
    @Test func generatedStringsToEveryMethod() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("todo.desktop", "Name=Todo\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        let script = #"""
            import sys, random, json, dbus
            random.seed(1234)
            bus = dbus.bus.BusConnection(sys.argv[1])
            \#(ServiceFixture.pythonNames)
            svc = dbus.Interface(bus.get_object(N, O), N)
            props = dbus.Interface(bus.get_object(N, O), 'org.freedesktop.DBus.Properties')
            allowed = {\#(ContractError.allCases.map { "'\($0)'" }.joined(separator: ", "))}
            allowed |= {'org.freedesktop.DBus.Error.InvalidArgs'}
            def rand_string():
                kind = random.randrange(9)
                if kind == 0: return ''.join(c for c in (chr(random.randrange(1, 0x2FFFF)) for _ in range(random.randrange(1, 40))) if not 0xD800 <= ord(c) <= 0xDFFF)
                if kind == 1: return 'todolist:' + ''.join(random.choice('\x01\x07\t\n\r\x1b\x7f\u0085\u2028 ') for _ in range(3))
                if kind == 2: return 'todolist://' + 'x' * random.choice([10, 65536 - 11, 65536, 70000, 300000])
                if kind == 3: return random.choice(['tоdolist://x', 'todolist\u200b://x', 'TODOLIST://x', 'todolist ://x', ':x', 'a:', '1a:', 'a+b.c-d:x', '-x:', 'todolist', '', ' ', 'http://x', 'file:///etc/passwd', 'javascript:alert(1)'])
                if kind == 4: return 'todolist://' + ''.join(random.choice('"\'`$();&|<>*?[]{}\\ -') for _ in range(30))
                if kind == 5: return ''.join(random.choice('abc:/%') for _ in range(random.randrange(0, 20)))
                if kind == 6: return 'x' * random.randrange(0, 5) + ':' + '\U0001F600' * random.randrange(0, 5000)
                if kind == 7: return random.choice(['todo.desktop', '../../etc/passwd', 'a/b.desktop', '.desktop', 'x' * 5000 + '.desktop', 'todo.desktop\n'])
                return ''.join(chr(random.randrange(32, 127)) for _ in range(random.randrange(0, 200)))
            counts = {'ok': 0, 'errors': {}}
            bad = []
            for i in range(int(sys.argv[2])):
                s = rand_string()
                m = random.randrange(6)
                try:
                    if m == 0: r = svc.CanOpenURL(s); assert isinstance(r, dbus.Boolean)
                    elif m == 1: r = svc.HandlersForScheme(s); assert isinstance(r, dbus.Array)
                    elif m == 2: r = svc.DefaultHandler(s); assert isinstance(r, dbus.String)
                    elif m == 3: r = svc.LaunchImageForURL(s); assert isinstance(r, dbus.String)
                    elif m == 4: r = svc.OpenURLWithOptions(s, dbus.Dictionary({'handler': s, 'launch-image': dbus.Boolean(False)}, signature='sv')); assert isinstance(r, dbus.Dictionary)
                    else: svc.SetDefaultHandler(s, random.choice(['todo.desktop', s]))
                    counts['ok'] += 1
                except dbus.DBusException as e:
                    name = e.get_dbus_name()
                    counts['errors'][name] = counts['errors'].get(name, 0) + 1
                    if name not in allowed: bad.append([m, s[:80], name, str(e)[:200]])
            assert props.Get(N, 'Version') == 1
            print(json.dumps({'counts': counts, 'bad': bad[:10]}))
            """#
        let client = try await Connection.connect(address: f.bus.address)
        defer { client.close() }
        _ = try await client.call(destination: BusName(ServiceFixture.name), path: ObjectPath(ServiceFixture.path),
                                  interface: InterfaceName(ServiceFixture.interface), member: "CanOpenURL", [.string("todolist:x")])
        let pidReply = try await client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                             member: "GetConnectionUnixProcessID", [.string(ServiceFixture.name)])
        guard case .uint32(let pid)? = pidReply.first else { Issue.record("no pid"); return }
        func rssKB() -> Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        let first = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address, "1500"], timeout: .seconds(120))
        #expect(first.status == 0, "\(first.stderr)")
        let rssAfterFirst = rssKB()
        let second = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address, "1500"], timeout: .seconds(120))
        #expect(second.status == 0, "\(second.stderr)")
        let rssAfterSecond = rssKB()
        // The first round grows the heap arenas the service's threads use (after the heap was
        // trimmed at start); from the second on, memory must stay flat.
        let third = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address, "1500"], timeout: .seconds(120))
        #expect(third.status == 0, "\(third.stderr)")
        let rssAfterThird = rssKB()
        for r in [first, second, third] {
            let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            #expect((json?["bad"] as? [Any])?.isEmpty == true, "undocumented errors: \(json?["bad"] ?? "none")")
            let counts = json?["counts"] as? [String: Any]
            #expect((counts?["ok"] as? Int ?? 0) > 0, "\(r.stdout)")
        }
        #expect(kill(Int32(pid), 0) == 0, "the service is still running")
        #expect(rssAfterThird - rssAfterSecond < 4096, "RSS \(rssAfterFirst) KB → \(rssAfterSecond) KB → \(rssAfterThird) KB")
        // The file the fuzzing tried to corrupt is still a valid list.
        let list = (try? String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)) ?? ""
        #expect(list.isEmpty || list.contains("[Default Applications]"), "\(list.prefix(500))")
    }
}

import DBusTestSupport
import Testing

/// The tests' X server does not repeat keys: a key a test presses once is held from its press to
/// its release, and on a busy machine that was long enough for the server to type it again (a
/// file chooser's field read `…/chosen.pngvvv` after one ctrl+V; ``Xvfb``).
@Suite struct XvfbKeyRepeatTests {
    @Test func theTestsXServerDoesNotRepeatAHeldKey() throws {
        let x = try Xvfb()
        defer { x.stop() }
        #expect(try x.repeatsKeys() == false)
    }
}

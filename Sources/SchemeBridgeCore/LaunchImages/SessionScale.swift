import Synchronization

/// The session's display scale for launch images: `GDK_SCALE` or `QT_SCALE_FACTOR` when set
/// (``DisplayScale/set(by:)``), else the display's `Xft.dpi`, asked of the splash helper in the
/// background (1 until it answers).
public final class SessionScale: Sendable {
    private let scale: Atomic<Int>

    /// `log`: told the scale learned from `Xft.dpi`.
    public init(environment: [String: String], splash: SplashHelper, log: @escaping @Sendable (String) -> Void) {
        let explicitScale = DisplayScale.set(by: environment)
        scale = Atomic(explicitScale ?? 1)
        if explicitScale == nil {
            Task.detached { [self] in
                guard let dpi = await splash.xftDPI() else { return }
                let s = DisplayScale.from(environment: [:], xftDPI: dpi)
                scale.store(s, ordering: .relaxed)
                log("display scale \(s) (Xft.dpi \(dpi))")
            }
        }
    }

    /// The scale now.
    public var current: Int { scale.load(ordering: .relaxed) }
}

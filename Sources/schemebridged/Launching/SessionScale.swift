import Logging
import SchemeBridgeCore
import Synchronization

/// The session's display scale (GDK_SCALE, QT_SCALE_FACTOR win; else the display's Xft.dpi,
/// learned in the background), for launch images.
final class SessionScale: Sendable {
    private let scale: Atomic<Int>

    init(environment: [String: String], presenter: LaunchImagePresenter, logger: Logger) {
        let explicitScale = DisplayScale.set(by: environment)
        scale = Atomic(explicitScale ?? 1)
        if explicitScale == nil {
            Task.detached { [self] in
                guard let dpi = await presenter.splash.xftDPI() else { return }
                let s = DisplayScale.from(environment: [:], xftDPI: dpi)
                scale.store(s, ordering: .relaxed)
                logger.info("display scale \(s) (Xft.dpi \(dpi))")
            }
        }
    }

    var current: Int { scale.load(ordering: .relaxed) }
}

import Glibc

// schemebridge-splash: the launch-image helper that schemebridged spawns per launch, so the
// service itself never talks to X. See SplashOptions.usage (`--help`) and docs/SPLASH.md.

let startedAt = monotonicMilliseconds()

func run() -> ExitStatus {
    let options: SplashOptions
    do {
        options = try SplashOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        writeStderr("schemebridge-splash: \(error.message)")
        return error.status
    }
    if options.help {
        print(SplashOptions.usage)
        return .takenDown
    }
    let log = Log(verbose: options.verbose, start: startedAt)
    do throws(SplashFailure) {
        // Signals first: a SIGTERM while the image loads still ends the helper cleanly.
        let signals = try SignalWatcher()
        // The timeout holds while the image is decoded and prepared, too.
        LoadDeadline.arm(start: startedAt, timeoutMs: options.timeoutMs, log: log)
        let image = try PNGLoader.load(path: options.imagePath)
        log.event("loaded \(options.imagePath) (\(image.width)x\(image.height))")
        let session = try SplashSession(options: options, image: image, signals: signals, log: log)
        LoadDeadline.disarm()
        _ = try session.run()
        return .takenDown
    } catch {
        log.error(error.message)
        return error.status
    }
}

if CommandLine.arguments.dropFirst().first == "--print-xft-dpi" { XftDPI.printAndExit() }
exit(run().rawValue)

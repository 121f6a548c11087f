// `schemebridge`: the lean entry point of the command line. The everyday call — `schemebridge
// open URL...` with no options, what `xdg-open`, `gio open` and browsers run through our desktop
// entry — is served here with the D-Bus layer alone (no argument parser, no Foundation: a
// process that starts in a fraction of the full program's time). Anything else replaces this
// process with the full command line, `schemebridge-cli` beside it, with the same arguments
// (same process id, so the service sees the same caller).
import Glibc
import SchemeBridgeCLIKit

if let urls = PlainOpen.urls(argc: CommandLine.argc, argv: CommandLine.unsafeArgv) {
    exit(PlainOpen.run(urls).rawValue)
}
FullCommandLine.exec()

import Testing

/// The launch-image tests. Each starts its own Xvfb and X clients and runs beside the rest of the
/// suite (none asserts a latency: the MEASURE lines report them). They were once one serialized
/// chain; the run's parallel width admitted that chain only when a slot freed, late, so its 26
/// tests one after another became the last ~50 s of every `make test`.
@Suite struct SplashTests {}

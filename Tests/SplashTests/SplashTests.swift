import Testing

/// Every launch-image test, one at a time: each starts its own Xvfb, and the take-down timing
/// checks (100 ms) must not compete with other tests for the machine's two cores.
@Suite(.serialized) struct SplashTests {}

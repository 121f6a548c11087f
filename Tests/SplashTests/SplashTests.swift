import Testing

/// Every launch-image test, one at a time: each starts its own Xvfb and X clients, which need
/// not compete with each other for the machine's two cores. No test here asserts a latency: the
/// MEASURE lines report them.
@Suite(.serialized) struct SplashTests {}

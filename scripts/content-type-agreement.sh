#!/bin/sh
# The content-type agreement test (Tests/SchemeBridgeCoreTests/ContentTypeAgreementTests.swift)
# over every regular file under /usr/share and /usr/lib instead of make test's sample: our types
# against `gio info -a standard::content-type`, the agreement and every difference printed.
# About a minute on a 2-core machine. CONTENT_TYPE_AGREEMENT_VERBOSE=1 also lists the generated set.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
swift build --build-tests
CONTENT_TYPE_AGREEMENT=full swift test --skip-build --filter ContentTypeAgreementTests

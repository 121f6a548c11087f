# SchemeBridge: make run | make test | make install | make bench
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
SWIFT ?= swift

.PHONY: all deps build release run test install uninstall bench fuzz clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	$(SWIFT) build

# Release binaries link the Swift runtime statically: a CLI that starts in ~2 ms less, and
# binaries that do not depend on the toolchain's shared libraries at run time.
RELEASE_FLAGS = -c release --static-swift-stdlib

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

run: build
	@bash scripts/demo.sh

# Builds everything (the service binaries too: end-to-end tests run them), then runs every suite.
# TEST_WIDTH bounds how many tests run at once (Swift Testing's maximum parallelization width).
# Unbounded, the suite ran over 100 private buses and services at once on two cores; each
# end-to-end test then waited behind all the others, and bus activation beside a parallel build
# outlasted its ceilings. Sixteen keeps the machine as busy while bounding the suite's own load.
TEST_WIDTH ?= 16
test: deps
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build

DATADIR = $(PREFIX)/share
# The installed binaries are stripped (symbols and DWARF: see the README for their sizes; a
# smaller file to map and read at every start). `make install KEEP_DEBUG=1` installs them as
# built, with their debug info, for debuggers and symbolicated backtraces.
KEEP_DEBUG ?=
INSTALL_PROGRAM = install -m 755 $(if $(KEEP_DEBUG),,-s)

install: release
	$(eval RBIN := $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/dbus-1/services $(DESTDIR)$(DATADIR)/dbus-1/interfaces \
		$(DESTDIR)$(PREFIX)/lib/systemd/user $(DESTDIR)$(DATADIR)/applications \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	$(INSTALL_PROGRAM) $(RBIN)/schemebridged $(RBIN)/schemebridge $(RBIN)/schemebridge-splash $(DESTDIR)$(BINDIR)/
	install -m 755 scripts/schemebridge-chooser $(DESTDIR)$(BINDIR)/
	sed 's|@bindir@|$(BINDIR)|' dbus/io.github.schemebridge.SchemeBridge1.service.in \
		> $(DESTDIR)$(DATADIR)/dbus-1/services/io.github.schemebridge.SchemeBridge1.service
	sed 's|@bindir@|$(BINDIR)|' dbus/schemebridged.service.in \
		> $(DESTDIR)$(PREFIX)/lib/systemd/user/schemebridged.service
	install -m 644 dbus/io.github.schemebridge.SchemeBridge1.xml dbus/io.github.schemebridge.Chooser1.xml $(DESTDIR)$(DATADIR)/dbus-1/interfaces/
	sed 's|^Exec=schemebridge |Exec=$(BINDIR)/schemebridge |' desktop/io.github.schemebridge.SchemeBridge.desktop \
		> $(DESTDIR)$(DATADIR)/applications/io.github.schemebridge.SchemeBridge.desktop
	$(RBIN)/schemebridge --generate-completion-script bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/schemebridge
	$(RBIN)/schemebridge --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_schemebridge
	$(RBIN)/schemebridge --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/schemebridge.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/schemebridged $(DESTDIR)$(BINDIR)/schemebridge $(DESTDIR)$(BINDIR)/schemebridge-splash \
		$(DESTDIR)$(BINDIR)/schemebridge-chooser \
		$(DESTDIR)$(DATADIR)/dbus-1/services/io.github.schemebridge.SchemeBridge1.service \
		$(DESTDIR)$(DATADIR)/dbus-1/interfaces/io.github.schemebridge.SchemeBridge1.xml \
		$(DESTDIR)$(DATADIR)/dbus-1/interfaces/io.github.schemebridge.Chooser1.xml \
		$(DESTDIR)$(PREFIX)/lib/systemd/user/schemebridged.service \
		$(DESTDIR)$(DATADIR)/applications/io.github.schemebridge.SchemeBridge.desktop \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/schemebridge \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_schemebridge \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/schemebridge.fish

bench: deps
	@bash Benchmarks/run.sh

# libFuzzer + ASan on the URL validator, key-file parser and Exec expander (FUZZ_SECONDS each).
fuzz: deps
	@bash Fuzz/run-fuzzers.sh

clean:
	rm -rf .build

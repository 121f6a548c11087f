# SchemeBridge: make run | make test | make install | make bench
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
SWIFT ?= swift

.PHONY: all deps build release run test install uninstall bench clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	@bash scripts/demo.sh

# Builds everything (the service binaries too: end-to-end tests run them), then runs every suite.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

install: release
	$(eval RBIN := $(shell $(SWIFT) build -c release --show-bin-path))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/dbus-1/services \
		$(DESTDIR)$(PREFIX)/share/dbus-1/interfaces $(DESTDIR)$(PREFIX)/lib/systemd/user
	install -m 755 $(RBIN)/schemebridged $(DESTDIR)$(BINDIR)/schemebridged
	sed 's|@bindir@|$(BINDIR)|' dbus/io.github.schemebridge.SchemeBridge1.service.in \
		> $(DESTDIR)$(PREFIX)/share/dbus-1/services/io.github.schemebridge.SchemeBridge1.service
	sed 's|@bindir@|$(BINDIR)|' dbus/schemebridged.service.in \
		> $(DESTDIR)$(PREFIX)/lib/systemd/user/schemebridged.service
	if [ -f dbus/io.github.schemebridge.SchemeBridge1.xml ]; then \
		install -m 644 dbus/io.github.schemebridge.SchemeBridge1.xml $(DESTDIR)$(PREFIX)/share/dbus-1/interfaces/; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/schemebridged \
		$(DESTDIR)$(PREFIX)/share/dbus-1/services/io.github.schemebridge.SchemeBridge1.service \
		$(DESTDIR)$(PREFIX)/share/dbus-1/interfaces/io.github.schemebridge.SchemeBridge1.xml \
		$(DESTDIR)$(PREFIX)/lib/systemd/user/schemebridged.service

bench: deps
	@bash Benchmarks/run.sh

clean:
	rm -rf .build

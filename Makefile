# SchemeBridge: make run | make test | make release && make install | make bench
#
# Installing (README, "Installing into a session"): `make release` builds the three shipped
# programs, `make install` copies what it built. install never runs the compiler when the programs
# are built, never installs packages (no `deps`) and needs no network; DESTDIR, PREFIX and the
# directory variables below are honoured. CONFIG=debug installs the debug build (`make build`).
PREFIX ?= /usr/local
# `PREFIX=~/.local` reaches make unexpanded from shells that expand no tilde there.
override PREFIX := $(patsubst ~%,$(HOME)%,$(PREFIX))
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/schemebridge
# The dialog program (scripts/schemebridge-dialog and its package dialogs/schemebridge_dialogs, with
# its translations) is the service's, not a user's command: it goes to LIBEXECDIR/schemebridge.
LIBEXECDIR ?= $(PREFIX)/libexec
DIALOGDIR = $(LIBEXECDIR)/schemebridge
# Its modules are compiled as they are installed, by the Python that runs them (the launcher's
# /usr/bin/python3): a system install's folder is not the user's to write, so Python would
# otherwise compile them on every start (the launcher then keeps them in the user's cache).
# DIALOG_BYTECODE= (empty) installs no compiled files: Debian's package compiles them when it is
# installed (py3compile), as Debian's Python policy asks.
DIALOG_BYTECODE ?= yes
DIALOG_PYTHON ?= /usr/bin/python3
SWIFT ?= swift
# The release, for the man pages: Release.version in the contract module.
VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/SchemeBridgeContract/Release.swift)

# Where the session looks for what starts the service. An install under $HOME
# (PREFIX=~/.local) is the user's own: the D-Bus service file, the desktop entry and the systemd
# user unit go to $XDG_DATA_HOME, which the session bus and `systemd --user` read. A system
# install puts the unit where systemd says (pkg-config, relative to PREFIX: /usr/local/lib/...),
# else PREFIX/lib/systemd/user.
ifeq ($(XDG_DATA_HOME),)
override XDG_DATA_HOME := $(HOME)/.local/share
endif
USER_INSTALL := $(filter $(HOME) $(HOME)/%,$(PREFIX))
ifneq ($(USER_INSTALL),)
SESSIONDATADIR ?= $(XDG_DATA_HOME)
SYSTEMDUSERUNITDIR ?= $(XDG_DATA_HOME)/systemd/user
else
SESSIONDATADIR ?= $(DATADIR)
SYSTEMDUSERUNITDIR ?= $(or $(shell pkg-config --define-variable=prefix=$(PREFIX) --variable=systemduserunitdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/user)
endif
DBUSSERVICEDIR ?= $(SESSIONDATADIR)/dbus-1/services
APPLICATIONSDIR ?= $(SESSIONDATADIR)/applications
# xdg-desktop-portal reads backends' .portal files from its own data directory only (1.16 and
# later; XDG_DESKTOP_PORTAL_DIR overrides it): a user install's copy is not seen by the portal.
PORTALSDIR ?= $(DATADIR)/xdg-desktop-portal/portals

.PHONY: dialogs-mo dialogs-test all deps deps-build deps-run build release lean-entry lean-header run test check-docs test-release install uninstall bench fuzz clean man install-file-manager-actions

all: build

# The Debian packages by purpose (scripts/deps.sh, README "Packages"): building, the demo, the
# test stacks. Each set includes the one before; `make deps` is the whole (test) set.
deps:
	@sh scripts/deps.sh test
deps-build:
	@sh scripts/deps.sh build
deps-run:
	@sh scripts/deps.sh run

build: deps-build
	$(SWIFT) build
	$(call lean-entry,.build/debug)

# schemebridge, the lean entry point (a plain `open URL-or-FILE...`, else it runs schemebridge-cli): C
# against libdbus, built here with the C compiler, since any SwiftPM executable target links the
# Swift runtime, whose start costs more than the whole call (docs/PERFORMANCE.md). $(call
# lean-entry,DIR) writes DIR/schemebridge. CFLAGS, CPPFLAGS and LDFLAGS are a packager's.
LEAN_ENTRY = Sources/schemebridge-lean/schemebridge.c
LEAN_CFLAGS = -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter
lean-entry = mkdir -p $(1) && $(CC) $(LEAN_CFLAGS) $(CPPFLAGS) $(CFLAGS) $$(pkg-config --cflags dbus-1) -o $(1)/schemebridge $(LEAN_ENTRY) \
	$(LDFLAGS) $$(pkg-config --libs dbus-1)
# Its names, paths and exit statuses come from Sources/schemebridge-lean/contract.h, written from
# the Swift contract (SchemeBridgeCLIKit/LeanEntryHeader.swift) and checked by LeanEntryHeaderTests;
# after a contract change, `make lean-header` writes it again.
lean-header:
	$(SWIFT) build --build-tests
	SCHEMEBRIDGE_WRITE_LEAN_HEADER=1 $(SWIFT) test --skip-build --filter LeanEntryHeaderTests
# The same as a target, into LEAN_DIR (make bench builds it beside its own release build).
LEAN_DIR ?= .build/debug
lean-entry:
	$(call lean-entry,$(LEAN_DIR))

# Release binaries link the Swift runtime statically: a CLI that starts in ~2 ms less, and
# binaries that do not depend on the toolchain's shared libraries at run time. Only the shipped
# programs are built (not the benchmarks' and tests' programs); no `deps`: a packager's build
# dependencies are libdbus-1-dev, libx11-dev, libpng-dev, libcurl4-openssl-dev and pkg-config (make deps installs them).
RELEASE_FLAGS = -c release --static-swift-stdlib
# schemebridge is the lean entry point (a plain `open URL-or-FILE...`); it runs schemebridge-cli, the full
# command line, for everything else. Both go to BINDIR, side by side.
SWIFT_PROGRAMS = schemebridged schemebridge-cli schemebridge-splash
PROGRAMS = $(SWIFT_PROGRAMS) schemebridge
# The introspection XML, one file per interface (annotated for code generators).
INTERFACES = $(addprefix dbus/io.github.schemebridge.,$(addsuffix .xml,SchemeBridge1 Request1 Pasteboards1 Pasteboard1 Chooser1 Share1))

release:
	for p in $(SWIFT_PROGRAMS); do $(SWIFT) build $(RELEASE_FLAGS) --product $$p || exit 1; done
	$(call lean-entry,.build/release)

# What install copies: .build/release (make release), or .build/debug with CONFIG=debug, or
# any folder holding the three programs (BUILD_DIR=...).
CONFIG ?= release
BUILD_DIR ?= .build/$(CONFIG)
BUILT = $(addprefix $(BUILD_DIR)/,$(PROGRAMS))

# Only when a program is missing: build that one product (never the rest of the package).
$(addprefix $(BUILD_DIR)/,$(SWIFT_PROGRAMS)):
	$(SWIFT) build $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS),) --product $(notdir $@)
$(BUILD_DIR)/schemebridge:
	$(call lean-entry,$(BUILD_DIR))

run: deps-run build
	@bash scripts/demo.sh

# Builds everything (the service binaries too: end-to-end tests run them), then runs every suite.
# TEST_WIDTH bounds how many tests run at once (Swift Testing's maximum parallelization width).
# Unbounded, the suite ran over 100 private buses and services at once on two cores; each
# end-to-end test then waited behind all the others, and bus activation beside a parallel build
# outlasted its ceilings. Sixteen keeps the machine as busy while bounding the suite's own load.
TEST_WIDTH ?= 16
# The suites and the docs' commands run with HOME a new, empty folder (scripts/home-guard.sh): what a
# test, or a program it starts, leaves in a user's home (~/.config, ~/.local/state, ~/.cache) fails
# the run, naming it — on a developer's machine it would be their own files (docs/DEVELOPING.md).
# Likewise with TMPDIR a new, empty folder (scripts/tmp-guard.sh): what they leave in the temporary
# folder fails the run, naming it.
GUARDS = bash scripts/home-guard.sh bash scripts/tmp-guard.sh
test: deps dialogs-test dialogs-mo
	$(SWIFT) build --build-tests
	$(call lean-entry,.build/debug)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(GUARDS) $(SWIFT) test --skip-build
	$(MAKE) --no-print-directory check-docs

# The dialogs' logic (dialogs/tests: the message, what they say in English and German, icons,
# thumbnails), without a display; and their translations compiled beside the package
# (dialogs/locale/LANG/LC_MESSAGES/schemebridge-dialogs.mo), where the launcher finds them.
DIALOG_LANGUAGES = $(basename $(notdir $(wildcard dialogs/po/*.po)))
dialogs-test:
	cd dialogs && bash ../scripts/tmp-guard.sh /usr/bin/python3 -W error -m unittest discover -s tests -t .
dialogs-mo:
	for l in $(DIALOG_LANGUAGES); do install -d dialogs/locale/$$l/LC_MESSAGES \
		&& msgfmt --check -o dialogs/locale/$$l/LC_MESSAGES/schemebridge-dialogs.mo dialogs/po/$$l.po || exit 1; done

# Every command README.md and docs/GUIDE.md show, run against a private bus with the built
# programs (scripts/check-doc-commands.py): a command the CLI no longer takes fails the build;
# and README's package lists against scripts/deps.sh.
check-docs:
	$(GUARDS) /usr/bin/python3 scripts/check-doc-commands.py .build/debug

# The end-to-end suites (ServiceTests: a private bus, the real programs) against the release
# build: the shipped programs come from .build/release (SCHEMEBRIDGE_TEST_PROGRAMS), the test-only
# helper programs from the debug build.
test-release: deps release
	$(SWIFT) build --build-tests
	SCHEMEBRIDGE_TEST_PROGRAMS=$(CURDIR)/.build/release SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) \
		$(GUARDS) $(SWIFT) test --skip-build --filter ServiceTests

# The installed binaries are stripped (symbols and DWARF: see the README for their sizes; a
# smaller file to map and read at every start). `make install KEEP_DEBUG=1` installs them as
# built, with their debug info, for debuggers and symbolicated backtraces.
KEEP_DEBUG ?=
INSTALL_PROGRAM = install -m 755 $(if $(KEEP_DEBUG),,-s)
SUBSTITUTE = sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@datadir@|$(DATADIR)|g' -e 's|@docdir@|$(DOCDIR)|g'
MANPAGES = man/schemebridge.1 man/schemebridge-config.5 man/schemebridged.8
DOCS = README.md CHANGELOG.md LICENSE docs/CONTRACT.md docs/CONTENT-TYPES.md docs/DBUS-LAYER.md docs/PERFORMANCE.md \
	docs/GUIDE.md docs/SECURITY.md docs/DIFFERENCES.md docs/DEVELOPING.md docs/ARCHITECTURE.md \
	docs/REGISTRY.md docs/SPLASH.md

install: $(BUILT) dialogs-mo
	install -d $(DESTDIR)$(DIALOGDIR)/schemebridge_dialogs
	install -m 755 scripts/schemebridge-dialog $(DESTDIR)$(DIALOGDIR)/
	install -m 644 dialogs/schemebridge_dialogs/*.py $(DESTDIR)$(DIALOGDIR)/schemebridge_dialogs/
	$(if $(DIALOG_BYTECODE),$(DIALOG_PYTHON) -m compileall -q -f -d $(DIALOGDIR)/schemebridge_dialogs $(DESTDIR)$(DIALOGDIR)/schemebridge_dialogs)
	for l in $(DIALOG_LANGUAGES); do install -D -m 644 dialogs/locale/$$l/LC_MESSAGES/schemebridge-dialogs.mo \
		$(DESTDIR)$(DIALOGDIR)/locale/$$l/LC_MESSAGES/schemebridge-dialogs.mo || exit 1; done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DBUSSERVICEDIR) $(DESTDIR)$(DATADIR)/dbus-1/interfaces \
		$(DESTDIR)$(SYSTEMDUSERUNITDIR) $(DESTDIR)$(APPLICATIONSDIR) \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL_PROGRAM) $(BUILT) $(DESTDIR)$(BINDIR)/
	$(SUBSTITUTE) dbus/io.github.schemebridge.SchemeBridge1.service.in \
		> $(DESTDIR)$(DBUSSERVICEDIR)/io.github.schemebridge.SchemeBridge1.service
	$(SUBSTITUTE) dbus/schemebridged.service.in > $(DESTDIR)$(SYSTEMDUSERUNITDIR)/schemebridged.service
	install -m 644 $(INTERFACES) $(DESTDIR)$(DATADIR)/dbus-1/interfaces/
	install -d $(DESTDIR)$(PORTALSDIR) && install -m 644 dbus/schemebridge.portal $(DESTDIR)$(PORTALSDIR)/
	sed 's|^Exec=schemebridge |Exec=$(BINDIR)/schemebridge |' desktop/io.github.schemebridge.SchemeBridge.desktop \
		> $(DESTDIR)$(APPLICATIONSDIR)/io.github.schemebridge.SchemeBridge.desktop
	$(BUILD_DIR)/schemebridge --generate-completion-script bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/schemebridge
	$(BUILD_DIR)/schemebridge --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_schemebridge
	$(BUILD_DIR)/schemebridge --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/schemebridge.fish
	for m in $(MANPAGES); do $(SUBSTITUTE) $$m > $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; done
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	@$(if $(and $(USER_INSTALL),$(if $(DESTDIR),,yes)),$(ZSH_FPATH_HINT))

# zsh reads completions from its fpath, which holds nothing under $HOME: a user install
# (PREFIX=~/.local) says the one line that adds its folder, when zsh is installed and does not
# look there already.
ZSH_FPATH_HINT = if command -v zsh >/dev/null 2>&1 && ! zsh -fc '(($$fpath[(Ie)$(DATADIR)/zsh/site-functions]))'; then \
	echo "zsh completion: add this line to ~/.zshrc, before compinit:  fpath=($(DATADIR)/zsh/site-functions \$$fpath)"; fi

# "Share…" in the file managers (issue 23 item 5), not part of `make install` (which writes
# nothing outside its directories): a Nautilus script, a Dolphin service menu (executable: KIO
# runs only those from a user's directory) and Thunar's custom action — a snippet and
# thunar-add-share-action, which merges it into ~/.config/Thunar/uca.xml without touching the
# user's own actions, run for a user install (PREFIX under $HOME, no DESTDIR). Only for the file
# managers installed here (nautilus, dolphin, thunar on PATH); a packager names them:
# FILE_MANAGERS="nautilus dolphin thunar".
FILEMANAGERDIR = $(DATADIR)/schemebridge/file-managers
FILE_MANAGERS ?= $(foreach m,nautilus dolphin thunar,$(if $(shell command -v $(m) 2>/dev/null),$(m)))
install-file-manager-actions:
	@echo "file managers: $(or $(strip $(FILE_MANAGERS)),none installed (nautilus, dolphin, thunar): nothing to do)"
	$(if $(filter nautilus,$(FILE_MANAGERS)),install -d '$(DESTDIR)$(SESSIONDATADIR)/nautilus/scripts' \
		&& $(SUBSTITUTE) desktop/filemanagers/nautilus-share > '$(DESTDIR)$(SESSIONDATADIR)/nautilus/scripts/Share…' \
		&& chmod 755 '$(DESTDIR)$(SESSIONDATADIR)/nautilus/scripts/Share…')
	$(if $(filter dolphin,$(FILE_MANAGERS)),install -d $(DESTDIR)$(SESSIONDATADIR)/kio/servicemenus \
		&& $(SUBSTITUTE) desktop/filemanagers/io.github.schemebridge.share.desktop \
			> $(DESTDIR)$(SESSIONDATADIR)/kio/servicemenus/io.github.schemebridge.share.desktop \
		&& chmod 755 $(DESTDIR)$(SESSIONDATADIR)/kio/servicemenus/io.github.schemebridge.share.desktop)
	$(if $(filter thunar,$(FILE_MANAGERS)),install -d $(DESTDIR)$(FILEMANAGERDIR) \
		&& $(SUBSTITUTE) desktop/filemanagers/thunar-share-action.xml > $(DESTDIR)$(FILEMANAGERDIR)/share-action.xml \
		&& install -m 755 desktop/filemanagers/thunar-add-share-action $(DESTDIR)$(FILEMANAGERDIR)/)
	$(if $(and $(filter thunar,$(FILE_MANAGERS)),$(USER_INSTALL),$(if $(DESTDIR),,yes)),sh $(FILEMANAGERDIR)/thunar-add-share-action)

uninstall:
	rm -rf $(DESTDIR)$(DIALOGDIR)
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(PROGRAMS)) \
		$(DESTDIR)$(DBUSSERVICEDIR)/io.github.schemebridge.SchemeBridge1.service $(DESTDIR)$(PORTALSDIR)/schemebridge.portal \
		$(addprefix $(DESTDIR)$(DATADIR)/dbus-1/interfaces/,$(notdir $(INTERFACES))) \
		$(DESTDIR)$(SYSTEMDUSERUNITDIR)/schemebridged.service \
		$(DESTDIR)$(APPLICATIONSDIR)/io.github.schemebridge.SchemeBridge.desktop \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/schemebridge \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_schemebridge \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/schemebridge.fish \
		$(DESTDIR)$(MANDIR)/man1/schemebridge.1 $(DESTDIR)$(MANDIR)/man5/schemebridge-config.5 \
		$(DESTDIR)$(MANDIR)/man8/schemebridged.8 $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) \
		'$(DESTDIR)$(SESSIONDATADIR)/nautilus/scripts/Share…' $(DESTDIR)$(SESSIONDATADIR)/kio/servicemenus/io.github.schemebridge.share.desktop \
		$(DESTDIR)$(FILEMANAGERDIR)/share-action.xml $(DESTDIR)$(FILEMANAGERDIR)/thunar-add-share-action
	-rmdir $(DESTDIR)$(DOCDIR)

# man/schemebridge.1 is generated from the CLI's help by swift-argument-parser's plugin (it builds
# the whole package in release mode first: ~10 minutes on a busy 2-core machine) and committed, so
# installing needs no generator. Run after changing the CLI's options or help texts. Its EXIT
# STATUS, JSON OUTPUT, EXAMPLES and SEE ALSO are hand-written: man/schemebridge.1.tail.
man:
	$(SWIFT) package generate-manual
	sed -e 's/^$$/.Pp/' -e '/^\.Sh "EXIT STATUS"$$/,$$d' .build/plugins/GenerateManual/outputs/schemebridge/schemebridge.1 \
		| cat - man/schemebridge.1.tail > man/schemebridge.1

bench: deps
	@bash Benchmarks/run.sh

# libFuzzer + ASan on the URL validator, key-file parser and Exec expander (FUZZ_SECONDS each).
fuzz: deps
	@bash Fuzz/run-fuzzers.sh

clean:
	rm -rf .build

# Everyday targets. `make test` is the README's test command and what CI runs.
SWIFT ?= swift

.PHONY: build release test lint format run clean install console-assets screenshots

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# The real dqlite nodes (DqliteNodeTests, DqliteClusterTests) run in a process of their own: their threads open
# and close descriptors (libuv's epoll, Raft's files and sockets) while the HTTP server's tests count the
# process's descriptors. LogSinkTests run there too: their pipe test, which needs a pipe nobody else reads or holds,
# failed three times in the main process among the suites that spawn daemons and clients (cause not proven).
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip 'DqliteNodeTests|DqliteClusterTests|LogSinkTests'
	$(SWIFT) test --skip-build --filter 'DqliteNodeTests|DqliteClusterTests|LogSinkTests'

# swift-format with the repository's .swift-format (NIO's style), as CI checks it.
FORMATTED = Sources Tests Benchmarks/Sources Fuzz/HTTPParserFuzz/Sources Fuzz/HTTP2Fuzz/Sources Fuzz/JSONRequestFuzz/Sources

lint:
	$(SWIFT) format lint --strict -r $(FORMATTED)

format:
	$(SWIFT) format format -i -r $(FORMATTED)

# The web console's files (Sources/SQLiteService/Console/Assets) into the Swift file that embeds them.
console-assets:
	python3 scripts/embed-console-assets.py

# The console's pictures in docs/ (desktop and phone widths), taken by its browser test (chromium, selenium).
screenshots:
	$(SWIFT) build --build-tests
	CONSOLE_SCREENSHOTS="$(CURDIR)/docs" $(SWIFT) test --skip-build --filter ConsoleBrowserTests

run:
	$(SWIFT) run sqlited

# Release binary, /etc/sqlited/sqlited.yaml and the systemd units (see scripts/install.sh for PREFIX, DESTDIR).
install:
	SWIFT="$(SWIFT)" scripts/install.sh

clean:
	rm -rf .build

# Everyday targets. `make test` is the README's test command and what CI runs.
SWIFT ?= swift

.PHONY: build release test run clean install

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

run:
	$(SWIFT) run sqlited

# Release binary, /etc/sqlited/sqlited.yaml and the systemd units (see scripts/install.sh for PREFIX, DESTDIR).
install:
	SWIFT="$(SWIFT)" scripts/install.sh

clean:
	rm -rf .build

# Everyday targets. `make test` is the README's test command and what CI runs.
SWIFT ?= swift

.PHONY: build release test run clean

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

run:
	$(SWIFT) run sqlited

clean:
	rm -rf .build

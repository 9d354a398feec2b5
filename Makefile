# sam build's build of every function (template.yaml: `BuildMethod: makefile`, built in source as
# samconfig.toml says): SAM runs `make build-<LogicalId>` with ARTIFACTS_DIR set, and the target
# puts that function's binary there as `bootstrap`.
#
#   PROFILE=release (the default): `cargo lambda build --release` of all ten functions at once,
#     the binaries scripts/package.sh zips and the benchmark measures. Every target runs the same
#     command; after the first it finds everything built.
#   PROFILE=dev: the dev binaries `cargo build --workspace --bins` already made (the test
#     command's, so that CI does not pay for a second build); x86_64 only.
#   ARCH=x86_64 (the default) or arm64 (needs the aarch64-unknown-linux-gnu target). It must be
#     the template's Architecture parameter: each copied binary is checked to be for ARCH.

ARCH ?= x86_64
PROFILE ?= release
CARGO_LAMBDA ?= $(firstword $(wildcard .venv/bin/cargo-lambda) cargo-lambda)
FUNCTIONS := authentication phone-calls clients portals contact-details questionnaires \
  questionnaire-scheduler organisations integrations access-log

ifeq ($(ARCH),arm64)
  ARCH_FLAG := --arm64
  ELF_MACHINE := 00b7
else ifeq ($(ARCH),x86_64)
  ARCH_FLAG := --x86-64
  ELF_MACHINE := 003e
else
  $(error ARCH must be x86_64 or arm64, not $(ARCH))
endif

.PHONY: functions lambdas $(addprefix build-,$(addsuffix Function,Authentication PhoneCalls Clients \
  Portals ContactDetails Questionnaires QuestionnaireScheduler Organisations Integrations \
  AccessLog))

# The functions' crate names, for the scripts.
functions:
	@echo $(FUNCTIONS)

# How the functions (and the benchmark's floors, scripts/bench.sh) are compiled for Lambda:
# position-dependent executables. A position-independent one carries a relocation for every
# pointer in its read-only data; without them each function is 0.64-0.70 MB smaller and under
# 8 MB. The cost: the executable itself is loaded at a fixed address (the heap, the stack and
# the shared libraries are still randomised). docs/performance.md, "Sizes", has the figures.
LAMBDA_RUSTFLAGS := -C relocation-model=static

.PHONY: lambda-rustflags
lambda-rustflags:
	@echo $(LAMBDA_RUSTFLAGS)

# All functions for Lambda, into target/lambda/<function>/bootstrap.
lambdas:
	RUSTFLAGS="$(LAMBDA_RUSTFLAGS)" $(CARGO_LAMBDA) lambda build --release --compiler cargo $(ARCH_FLAG) \
	  $(addprefix -p ,$(FUNCTIONS))

# $(call artifact,<crate>): the function's binary for PROFILE, as $(ARTIFACTS_DIR)/bootstrap.
ifeq ($(PROFILE),release)
define artifact
	$(MAKE) --no-print-directory lambdas
	cp target/lambda/$(1)/bootstrap "$(ARTIFACTS_DIR)/bootstrap"
	$(call check_machine)
endef
else ifeq ($(PROFILE),dev)
define artifact
	@test "$(ARCH)" = x86_64 || { echo "PROFILE=dev binaries are x86_64" >&2; exit 1; }
	@test -x target/debug/$(1) || { echo "target/debug/$(1) is missing: cargo build --workspace --bins" >&2; exit 1; }
	cp target/debug/$(1) "$(ARTIFACTS_DIR)/bootstrap"
	$(call check_machine)
endef
else
  $(error PROFILE must be release or dev, not $(PROFILE))
endif

# The ELF header's e_machine (bytes 18-19) of the copied binary must be ARCH's.
define check_machine
	@machine=$$(od -An -tx1 -j18 -N2 "$(ARTIFACTS_DIR)/bootstrap" | awk '{print $$2 $$1}'); \
	  test "$$machine" = "$(ELF_MACHINE)" || { \
	    echo "bootstrap is for ELF machine $$machine, not $(ARCH)" >&2; exit 1; }
endef

build-AuthenticationFunction:
	$(call artifact,authentication)
build-PhoneCallsFunction:
	$(call artifact,phone-calls)
build-ClientsFunction:
	$(call artifact,clients)
build-PortalsFunction:
	$(call artifact,portals)
build-ContactDetailsFunction:
	$(call artifact,contact-details)
build-QuestionnairesFunction:
	$(call artifact,questionnaires)
build-QuestionnaireSchedulerFunction:
	$(call artifact,questionnaire-scheduler)
build-OrganisationsFunction:
	$(call artifact,organisations)
build-IntegrationsFunction:
	$(call artifact,integrations)
build-AccessLogFunction:
	$(call artifact,access-log)

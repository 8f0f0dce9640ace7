# SPDX-License-Identifier: GPL-2.0
# diskio: build, run, test and benchmark.  `make V=1` shows the full commands.
OUTPUT := .output
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/loongarch64/loongarch/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

# CFLAGS and LDFLAGS are the packager's (environment or command line); what
# diskio needs is added to them.  Warnings stop the build only when asked:
# make WERROR=1, as CI does (a packager's newer compiler may warn anew).
CFLAGS ?= -g -O2
WERROR_FLAG := $(if $(filter 1,$(WERROR)),-Werror)
# The root holds the files the design names; the folders, each with a
# README, a domain: the step (step/), what a process, a disk and a file are
# (procs/, disks/, files/), the command line (cli/), and what loads, shows
# and writes around the step.  Each folder is on the include path, so an
# include names a header alone.
SRC_DIRS := step procs disks files cli kernel views outputs stacks lib history
INCLUDES := -I$(OUTPUT) -I. $(addprefix -I,$(SRC_DIRS))
# The BPF object's headers (kernel/*.bpf.h) are the BPF program's alone.
BPF_HEADERS := kernel/abi.h $(wildcard kernel/*.bpf.h)
HEADERS := $(filter-out %.bpf.h,$(wildcard *.h $(addsuffix /*.h,$(SRC_DIRS))))
override CFLAGS += -std=gnu11 -Wall -Wextra $(WERROR_FLAG) $(INCLUDES)
# -mcpu=v3: compare-and-exchange for the in-flight table (Linux 5.12+).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall $(WERROR_FLAG) \
	-I$(dir $(VMLINUX)) -I. -Ikernel
LIBS := -lbpf -lelf -lz

# Modules that never call libbpf: unit-tested without root.
PURE_SRCS := resources.c pmem_metrics.c crashfree.c \
	$(addprefix step/,tally.c tally_owners.c tally_waits.c tally_files.c tally_names.c frame.c \
	cgroup_pressure.c event_records.c diagnosis.c) $(addprefix procs/,users.c ioprio.c cmdline.c procfs.c iowait.c pressure.c \
	cgroups.c io_limits.c command.c) $(addprefix disks/,devname.c devlayers.c diskstats.c iostats.c) \
	$(addprefix files/,files.c filepath.c) cli/options.c cli/diagnose_rules.c \
	$(addprefix kernel/,snapshot.c mapsize.c) $(addprefix views/,format.c batch.c json.c trace.c \
	top.c top_help.c top_lines.c top_keys.c top_layout.c top_files.c diagnose.c) $(addprefix stacks/,stacks.c row_stacks.c \
	symbolize.c ksyms.c usyms.c elf_cache.c trusted_files.c elfsyms.c ehframe.c elfread.c) \
	outputs/prom.c outputs/crashfree_state.c $(addprefix lib/,jsonw.c atomic_file.c array.c \
	latency_hist.c outstream.c utf8.c sorted.c strpool.c scan.c root_only.c escape.c std_fds.c) \
	$(addprefix history/,history_format.c history_encode.c history_decode.c history_write.c \
	history_read.c history_list.c replay_window.c replay_sum.c)
# What the pure modules link against besides libc: zlib (the record's chunks
# and CRCs, history/), linked like libm on every line below.
PURE_LIBS :=
# The loader: libbpf and syscalls.
LOADER_SRCS := lib/msg.c $(addprefix kernel/,probe.c maps.c events.c loader.c) \
	views/terminal.c views/view_open.c \
	$(addprefix outputs/,outputs.c output.c prom_file.c folded_file.c state_file.c \
	record_file.c) history/replay.c
LOADER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LOADER_SRCS))
PURE_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(PURE_SRCS))
UNIT_TESTS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(wildcard tests/test_*.c))
# Binaries with known function names for tests/test_symbolize.c to name frames in: a PIE, a
# non-PIE, a stripped PIE that exports its functions (.dynsym only), one that does not, and
# the PIE's separate debug file.
SYMBOLIZE_DATA := $(OUTPUT)/tests/data
# A program with known call frame information for tests/test_ehframe.c and
# test_symbolize.c.
EHFRAME_TARGET := $(SYMBOLIZE_DATA)/ehframe_target
# lld lays a PIE's code out at a virtual address that is not its file offset (GNU ld keeps
# them equal), which checks the PT_LOAD arithmetic; without lld it is one more GNU ld PIE.
SYMBOLIZE_TARGETS := $(addprefix $(SYMBOLIZE_DATA)/symbolize_target_,pie nopie dynsym stripped \
	lld) $(SYMBOLIZE_DATA)/symbolize_target_pie.debug
LLD := $(shell command -v ld.lld 2>/dev/null)
SYMBOLIZE_TARGET_CFLAGS := -g -O0 -fno-omit-frame-pointer -fno-inline -Wall $(WERROR_FLAG)
STRIP ?= strip
OBJCOPY ?= objcopy
INTEGRATION_TESTS := $(patsubst tests/integration/%.c,$(OUTPUT)/itests/%,\
	$(wildcard tests/integration/test_*.c))

# The unit tests again, built with AddressSanitizer and UndefinedBehaviorSanitizer. A report
# aborts the test's process: Criterion counts the test as crashed, or, for a leak (found when
# the process exits, after the test was counted), warns that the test "crashed during its
# setup or teardown"; either way the runner exits 1.
ASAN_OUTPUT := $(OUTPUT)/asan
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
ASAN_PURE_OBJS := $(patsubst %.c,$(ASAN_OUTPUT)/%.o,$(PURE_SRCS))
ASAN_UNIT_TESTS := $(patsubst tests/%.c,$(ASAN_OUTPUT)/tests/%,$(wildcard tests/test_*.c))
# Leaks are checked in every test process Criterion starts (tests/test_options.c says why
# its own forked children skip the check).
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:$\
detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1

# libFuzzer targets (clang), one per parser: tests/fuzz/fuzz_TARGET.c, seeds in tests/fuzz/TARGET/.
FUZZ_TARGETS := state devname options resources stacks kallsyms elf ehframe cmdline filenames history
FUZZ_SECONDS ?= 20
FUZZ_OUTPUT := $(OUTPUT)/fuzz
FUZZ_CFLAGS := -g -O1 -std=gnu11 -Wall -Wextra $(WERROR_FLAG) $(INCLUDES) -Itests/fuzz \
	-fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_PURE_OBJS := $(patsubst %.c,$(FUZZ_OUTPUT)/%.o,$(PURE_SRCS))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUTPUT)/fuzz_%,$(FUZZ_TARGETS))

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# make install PREFIX=/usr/local DESTDIR=: the binary, the man page, the unit
# file (its ExecStart naming SBINDIR) and the bash completion.
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR := $(PREFIX)/sbin
MAN8DIR := $(PREFIX)/share/man/man8
UNITDIR := $(PREFIX)/lib/systemd/system
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
INSTALLED := $(DESTDIR)$(SBINDIR)/diskio $(DESTDIR)$(MAN8DIR)/diskio.8 \
	$(DESTDIR)$(UNITDIR)/diskio.service $(DESTDIR)$(COMPLETIONDIR)/diskio

.PHONY: all deps deps-test deps-bench deps-fuzz deps-static deps-kernels run test unit \
	unit-asan build-flags integration fuzz fuzz-run static test-kernels bench vmlinux clean \
	install uninstall prometheus-rules
.DELETE_ON_ERROR:
.SECONDARY:

all: diskio

deps:
	$(Q)scripts/deps.sh build

deps-test:
	$(Q)scripts/deps.sh test

deps-bench:
	$(Q)scripts/deps.sh bench

deps-fuzz:
	$(Q)scripts/deps.sh fuzz

deps-static:
	$(Q)scripts/deps.sh static

deps-kernels:
	$(Q)scripts/deps.sh kernels

diskio: $(OUTPUT)/diskio.o $(LOADER_OBJS) $(PURE_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBS) -lm -o $@

# The same program with libbpf, libelf and zlib linked in, for a machine
# that has none of them installed.
static: deps-static
	$(Q)$(MAKE) --no-print-directory diskio-static

diskio-static: $(OUTPUT)/diskio.o $(LOADER_OBJS) $(PURE_OBJS)
	$(call msg,STATIC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -static $^ $(LIBS) -lm -o $@

# The guest's test runner for test-kernels: static, it runs from an initramfs.
$(OUTPUT)/guest_checks: tests/kernels/guest_checks.c | $(OUTPUT)
	$(call msg,GUEST,$@)
	$(Q)$(CC) $(CFLAGS) -static -pthread $< -o $@

$(OUTPUT) $(OUTPUT)/tests $(OUTPUT)/itests $(ASAN_OUTPUT)/tests $(FUZZ_OUTPUT) $(SYMBOLIZE_DATA):
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: %.bpf.c $(BPF_HEADERS) $(VMLINUX) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o | $(OUTPUT)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/kernel/loader.o: $(OUTPUT)/diskio.skel.h

$(OUTPUT)/%.o: %.c $(HEADERS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/tests/test_%: tests/test_%.c tests/json_reader.c tests/check_util.c $(PURE_OBJS) \
		$(wildcard tests/*.h) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(TEST_DEFS) -Itests $< tests/json_reader.c tests/check_util.c \
		$(PURE_OBJS) $(PURE_LIBS) -lcriterion -lpthread -lz -lm -o $@

$(ASAN_OUTPUT)/%.o: %.c $(HEADERS) | $(ASAN_OUTPUT)/tests
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SANITIZE_FLAGS) -c $< -o $@

$(ASAN_OUTPUT)/tests/test_%: tests/test_%.c tests/json_reader.c tests/check_util.c \
		$(ASAN_PURE_OBJS) $(wildcard tests/*.h) | $(ASAN_OUTPUT)/tests
	$(call msg,TEST-ASAN,$@)
	$(Q)$(CC) $(CFLAGS) $(SANITIZE_FLAGS) $(TEST_DEFS) -Itests $< tests/json_reader.c \
		tests/check_util.c $(ASAN_PURE_OBJS) $(PURE_LIBS) -lcriterion -lpthread -lz -lm -o $@

$(OUTPUT)/tests/test_symbolize $(ASAN_OUTPUT)/tests/test_symbolize: $(SYMBOLIZE_TARGETS) \
	$(EHFRAME_TARGET)
$(OUTPUT)/tests/test_ehframe $(ASAN_OUTPUT)/tests/test_ehframe: $(EHFRAME_TARGET)
$(OUTPUT)/tests/test_ehframe $(ASAN_OUTPUT)/tests/test_ehframe: \
	TEST_DEFS := -DEHFRAME_DATA='"$(CURDIR)/$(SYMBOLIZE_DATA)"'
$(OUTPUT)/tests/test_ehframe $(ASAN_OUTPUT)/tests/test_ehframe: PURE_LIBS := -ldl

$(EHFRAME_TARGET): tests/data/ehframe_target.c | $(SYMBOLIZE_DATA)
	$(call msg,TARGET,$@)
	$(Q)$(CC) -O0 -fPIE -pie -Wall $(WERROR_FLAG) $< -o $@

$(OUTPUT)/tests/test_symbolize $(ASAN_OUTPUT)/tests/test_symbolize: \
	TEST_DEFS := -DSYMBOLIZE_DATA='"$(CURDIR)/$(SYMBOLIZE_DATA)"'
# The test reads its targets' layout with libelf, to check the reader against it.
$(OUTPUT)/tests/test_symbolize $(ASAN_OUTPUT)/tests/test_symbolize: PURE_LIBS := -lelf

$(SYMBOLIZE_DATA)/symbolize_target_pie: tests/data/symbolize_target.c | $(SYMBOLIZE_DATA)
	$(call msg,TARGET,$@)
	$(Q)$(CC) $(SYMBOLIZE_TARGET_CFLAGS) -fPIE -pie $< -o $@

$(SYMBOLIZE_DATA)/symbolize_target_nopie: tests/data/symbolize_target.c | $(SYMBOLIZE_DATA)
	$(call msg,TARGET,$@)
	$(Q)$(CC) $(SYMBOLIZE_TARGET_CFLAGS) -fno-pie -no-pie $< -o $@

$(SYMBOLIZE_DATA)/symbolize_target_dynsym: tests/data/symbolize_target.c | $(SYMBOLIZE_DATA)
	$(call msg,TARGET,$@)
	$(Q)$(CC) $(SYMBOLIZE_TARGET_CFLAGS) -fPIE -pie -rdynamic $< -o $@
	$(Q)$(STRIP) --strip-all $@

$(SYMBOLIZE_DATA)/symbolize_target_lld: tests/data/symbolize_target.c | $(SYMBOLIZE_DATA)
	$(call msg,TARGET,$@)
	$(Q)$(CC) $(SYMBOLIZE_TARGET_CFLAGS) -fPIE -pie $(if $(LLD),-fuse-ld=lld) $< -o $@

$(SYMBOLIZE_DATA)/symbolize_target_stripped: $(SYMBOLIZE_DATA)/symbolize_target_pie
	$(call msg,TARGET,$@)
	$(Q)$(STRIP) --strip-all $< -o $@

# The stripped binary's separate debug file (same build-id), as a -dbgsym package has it.
$(SYMBOLIZE_DATA)/symbolize_target_pie.debug: $(SYMBOLIZE_DATA)/symbolize_target_pie
	$(call msg,TARGET,$@)
	$(Q)$(OBJCOPY) --only-keep-debug $< $@

# Coverage for libFuzzer in the modules under test, sanitizers everywhere.
$(FUZZ_OUTPUT)/%.o: %.c $(HEADERS) | $(FUZZ_OUTPUT)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.c tests/fuzz/fuzz_util.h \
		$(FUZZ_PURE_OBJS) | $(FUZZ_OUTPUT)
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< tests/fuzz/fuzz_util.c \
		$(FUZZ_PURE_OBJS) $(FUZZ_EXTRA) $(PURE_LIBS) -lz -lm -o $@

# fuzz_elf counts the bytes elfsyms.c reads: its pread() calls go through the target.
$(FUZZ_OUTPUT)/fuzz_elf: FUZZ_EXTRA := -Wl,--wrap=pread

$(OUTPUT)/itests/%: tests/integration/%.c tests/integration/harness.c tests/json_reader.c \
		tests/integration/harness.h tests/json_reader.h | $(OUTPUT)/itests
	$(call msg,ITEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/integration -Itests $< tests/integration/harness.c \
		tests/json_reader.c -lcriterion -lpthread -lm -o $@

# The unit is made at every install: its ExecStart follows this PREFIX.
install: diskio | $(OUTPUT)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|g' dist/diskio.service.in > $(OUTPUT)/diskio.service
	$(Q)install -D -m 0755 diskio $(DESTDIR)$(SBINDIR)/diskio
	$(Q)install -D -m 0644 dist/diskio.8 $(DESTDIR)$(MAN8DIR)/diskio.8
	$(Q)install -D -m 0644 $(OUTPUT)/diskio.service $(DESTDIR)$(UNITDIR)/diskio.service
	$(Q)install -D -m 0644 dist/diskio.bash $(DESTDIR)$(COMPLETIONDIR)/diskio

# Exactly what install put there; directories stay (others' files may be in them).
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(INSTALLED)

# Regenerate the committed vmlinux.h from the running kernel's BTF.
vmlinux:
	$(Q)mkdir -p $(dir $(VMLINUX))
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX)

# A 5-second one-shot sample of this machine.
run: deps
	$(Q)$(MAKE) --no-print-directory diskio
	./diskio 5 1

test: deps-test
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory prometheus-rules
	$(Q)$(MAKE) --no-print-directory build-flags
	$(Q)$(MAKE) --no-print-directory unit-asan
	$(Q)$(MAKE) --no-print-directory fuzz
	$(Q)$(MAKE) --no-print-directory integration
	$(Q)$(MAKE) --no-print-directory test-kernels

# The Criterion tests, then the bash completion run by bash with bash-completion loaded, then
# the layers of the includes (doc/design.md), then no test logging at the warning level.
unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	$(Q)echo "== tests/test_completion.sh"; tests/test_completion.sh dist/diskio.bash
	$(Q)echo "== tests/test_layers.sh"; tests/test_layers.sh
	$(Q)echo "== tests/test_no_warn_logs.sh"; tests/test_no_warn_logs.sh

# The recording rules and alerts of dist/prometheus/: promtool checks them and runs their
# unit tests (tests/prometheus/, synthetic series with answers worked out by hand).  No root.
PROM_RULES := dist/prometheus/diskio.rules.yml dist/prometheus/diskio.alerts.yml
prometheus-rules:
	$(Q)promtool check rules $(PROM_RULES)
	$(Q)promtool test rules $(wildcard tests/prometheus/*_test.yml)

# The packager's CFLAGS and LDFLAGS reach the build: make CFLAGS=-O1 LDFLAGS=-Wl,-z,now in
# a copy of the tree (this tree's build is left alone), checked in the V=1 log and by readelf.
build-flags:
	$(Q)scripts/check_build_flags.sh

unit-asan: $(ASAN_UNIT_TESTS)
	$(Q)set -e; for t in $(ASAN_UNIT_TESTS); do echo "== $$t"; $(SANITIZE_ENV) $$t; done

# Each target for FUZZ_SECONDS (default 20); fails if any finds a crash.
fuzz: deps-fuzz
	$(Q)$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_BINS)
	$(Q)scripts/fuzz.sh $(FUZZ_OUTPUT) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

integration: diskio $(INTEGRATION_TESTS)
	$(Q)set -e; for t in $(INTEGRATION_TESTS); do echo "== $$t"; \
		DISKIO=$(CURDIR)/diskio $$t --jobs 1; done

# Boot the kernels of tests/kernels/list under QEMU and run the guest's checks.
test-kernels: deps-kernels
	$(Q)$(MAKE) --no-print-directory diskio-static $(OUTPUT)/guest_checks
	$(Q)scripts/test_kernels.sh diskio-static $(OUTPUT)/guest_checks

bench: deps-bench
	$(Q)$(MAKE) --no-print-directory diskio $(BENCH_OUTPUT)/empty_loader
	$(Q)scripts/bench.sh
	$(Q)scripts/bench_writeback.sh
	$(Q)scripts/bench_switch.sh
	$(Q)$(MAKE) --no-print-directory $(BENCH_OUTPUT)/record_size
	$(Q)scripts/bench_record.sh $(BENCH_OUTPUT)/record_size
	$(Q)scripts/bench_start.sh

# The bench's floor (bench/README.md): empty programs on the hooks diskio runs per I/O,
# built as diskio.bpf.c is.
BENCH_OUTPUT := $(OUTPUT)/bench
$(BENCH_OUTPUT)/empty.bpf.o: bench/empty.bpf.c $(VMLINUX)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_OUTPUT)/empty.skel.h: $(BENCH_OUTPUT)/empty.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(BENCH_OUTPUT)/empty_loader: bench/empty_loader.c $(BENCH_OUTPUT)/empty.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BENCH_OUTPUT) $(LDFLAGS) $< $(LIBS) -o $@

# Part D: --record's bytes and CPU a frame, on frames made to look like an idle and a busy box.
$(BENCH_OUTPUT)/record_size: bench/record_size.c $(PURE_OBJS)
	$(call msg,BINARY,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(PURE_OBJS) -lz -lm -o $@

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) diskio diskio-static
